import type * as Y from 'yjs';
import { type Prepared, prepare } from './check-value.js';
import { cloneJson, jsonKey, plainOf } from './json.js';
import { type CrdtType, findRoot, getRoot } from './root-types.js';
import { DiffBudget, diffSequences } from './sequence-diff.js';
import { syncText } from './text-diff.js';
import { syncXml } from './xml-sync.js';

/**
 * Makes the content under `key` equal `value` with the smallest reasonable
 * edit, in one transaction, so that clients editing concurrently keep their
 * edits and receive only the change. Returns whether anything changed.
 */
export function writeValue(doc: Y.Doc, type: CrdtType, key: string, value: unknown, origin?: unknown): boolean {
  const edit = planEdit(doc, key, prepare(type, value), new DiffBudget());
  let changed = false;
  doc.transact(() => {
    changed = edit();
  }, origin);
  return changed;
}

/** Finds the root (refusing a kind conflict) before any transaction starts. */
function planEdit(doc: Y.Doc, key: string, prepared: Prepared, budget: DiffBudget): () => boolean {
  switch (prepared.type) {
    case 'text': {
      const text = getRoot(doc, 'text', key);
      return () => syncText(text, [{ text: prepared.text, format: '' }], budget);
    }
    case 'map': {
      const map = getRoot(doc, 'map', key);
      return () => syncMap(map, prepared.entries);
    }
    case 'array': {
      const array = getRoot(doc, 'array', key);
      return () => syncArray(array, prepared.items, budget);
    }
    case 'xml': {
      const fragment = getRoot(doc, 'xml', key);
      return () => syncXml(fragment, prepared.nodes, budget);
    }
  }
}

/** Sets the keys whose value changed and deletes the keys that are gone; the rest is not touched. */
function syncMap(map: Y.Map<unknown>, entries: [string, unknown][]): boolean {
  let changed = false;
  const wanted = new Set<string>();
  for (const [key, value] of entries) {
    wanted.add(key);
    if (map.has(key) && jsonKey(plainOf(map.get(key))) === jsonKey(value)) continue;
    map.set(key, cloneJson(value));
    changed = true;
  }
  for (const key of [...map.keys()]) {
    if (wanted.has(key)) continue;
    map.delete(key);
    changed = true;
  }
  return changed;
}

/** Deletes and inserts only the elements a diff by value finds changed. */
function syncArray(array: Y.Array<unknown>, items: unknown[], budget: DiffBudget): boolean {
  const ids = new Map<string, number>();
  const id = (value: unknown) => {
    const key = jsonKey(value);
    let found = ids.get(key);
    if (found === undefined) {
      found = ids.size;
      ids.set(key, found);
    }
    return found;
  };
  const hunks = diffSequences(array.toArray().map((item) => id(plainOf(item))), items.map(id), budget);
  for (let h = hunks.length - 1; h >= 0; h--) {
    const hunk = hunks[h]!;
    if (hunk.aEnd > hunk.aStart) array.delete(hunk.aStart, hunk.aEnd - hunk.aStart);
    if (hunk.bEnd > hunk.bStart) array.insert(hunk.aStart, items.slice(hunk.bStart, hunk.bEnd).map(cloneJson));
  }
  return hunks.length > 0;
}

/** Deletes all content under `key`, in one transaction. */
export function clearValue(doc: Y.Doc, type: CrdtType, key: string, origin?: unknown): void {
  const root = findRoot(doc, type, key);
  if (root === null) return;
  doc.transact(() => {
    switch (type) {
      case 'map': {
        const map = root as Y.Map<unknown>;
        for (const mapKey of [...map.keys()]) map.delete(mapKey);
        break;
      }
      default: {
        const list = root as Y.Text | Y.Array<unknown> | Y.XmlFragment;
        if (list.length > 0) list.delete(0, list.length);
      }
    }
  }, origin);
}
