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
