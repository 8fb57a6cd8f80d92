/**
 * An object to key by caller-chosen IDs. Without a prototype, every ID is an
 * own key like any other: `result["constructor"]` is not read through to
 * Object.prototype, and assigning `result["__proto__"]` stores an entry
 * instead of replacing the prototype (whose properties zod's record parsing
 * would then list as fake keys).
 */
export function idMap<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}

/** An idMap of these entries, in order (a later entry for the same ID wins, as with assignment). */
export function idMapOf<V>(entries: Iterable<readonly [string, V]>): Record<string, V> {
  const map = idMap<V>();
  for (const [id, value] of entries) map[id] = value;
  return map;
}

/** The per-ID result of a delete by IDs: success for the deleted ones, a message naming each missing one. */
export function deletionOutcomes(ids: readonly string[], deleted: ReadonlySet<string>, what: string, organizationId: string) {
  const done = `${what.charAt(0).toUpperCase()}${what.slice(1)} deleted.`;
  return idMapOf(
    ids.map((id) => [id, deleted.has(id) ? { success: true, message: done } : { success: false, message: `${what} ${id} does not exist in organization ${organizationId}` }] as const),
  );
}
