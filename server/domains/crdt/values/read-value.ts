import type * as Y from 'yjs';
import { defineOwn, plainOf } from './json.js';
import { type CrdtType, findRoot } from './root-types.js';
import { readXml } from './xml-sync.js';

/**
 * The JSON value stored under `key` as `type`: a string for text and xml, an
 * object for map, an array for array; '' / {} / [] when there is none.
 * Throws CrdtValueError when the key holds another kind of type.
 */
export function readValue(doc: Y.Doc, type: CrdtType, key: string): unknown {
  switch (type) {
    case 'text':
      return findRoot(doc, 'text', key)?.toString() ?? '';
    case 'map': {
      // Built with defineProperty rather than Y.Map.toJSON's assignment, which
      // would drop a key named __proto__.
      const out: Record<string, unknown> = {};
      for (const [mapKey, value] of findRoot(doc, 'map', key)?.entries() ?? []) defineOwn(out, mapKey, plainOf(value));
      return out;
    }
    case 'array':
      return findRoot(doc, 'array', key)?.toArray().map(plainOf) ?? [];
    case 'xml': {
      const fragment = findRoot(doc, 'xml', key);
      return fragment ? readXml(fragment) : '';
    }
  }
}
