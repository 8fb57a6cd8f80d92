/**
 * Dot-path lookup shared by `when` conditions and templates. Both read data
 * that callers and agents wrote (trigger payloads, step outputs), so a path
 * only follows an object's own properties: `__proto__`, `constructor` or
 * `toString` name nothing unless the data itself has such a key, and never
 * reach a prototype or a function.
 */

/** Follows `segments` from `root` through own properties of objects and arrays; undefined where the path ends. */
export function lookupPath(root: unknown, segments: readonly string[]): unknown {
  let value: unknown = root;
  for (const segment of segments) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/** `a.b.c` → `['a', 'b', 'c']`; undefined for an empty path or an empty segment (`a..b`, `.a`). */
export function splitPath(path: string): string[] | undefined {
  const segments = path.split('.');
  return segments.every((segment) => segment.length > 0) ? segments : undefined;
}

/** A dot path (`payload.page.url`) into `root`, own properties only. */
export const lookupDotPath = (root: unknown, path: string): unknown => lookupPath(root, path.split('.'));
