import { CrdtValueError } from './errors.js';
import { checkEntry, checkWellFormed, isPlainObject, memberPath } from './json.js';
import { CRDT_TYPES, type CrdtType } from './root-types.js';
import { type XmlNode, parseXml } from './xml.js';

/** A value that passed checkValue, in the shape the writer needs. */
export type Prepared =
  | { type: 'text'; text: string }
  | { type: 'map'; entries: [string, unknown][] }
  | { type: 'array'; items: unknown[] }
  | { type: 'xml'; nodes: XmlNode[] };

/** Checks `value` against `type` and returns it ready to write. Throws CrdtValueError. */
export function prepare(type: CrdtType, value: unknown): Prepared {
  switch (type) {
    case 'text':
      if (typeof value !== 'string') throw new CrdtValueError('data must be a string for type text');
      checkWellFormed(value, 'data');
      return { type, text: value };
    case 'map': {
      if (!isPlainObject(value)) throw new CrdtValueError('data must be an object for type map');
      // Top-level keys become Y.Map keys, which may be anything (even
      // __proto__); only what lies below them travels through lib0's encoding.
      const entries = Object.keys(value).map((key): [string, unknown] => {
        checkWellFormed(key, 'a key of data');
        checkEntry(value[key], memberPath('data', key));
        return [key, value[key]];
      });
      return { type, entries };
    }
    case 'array':
      if (!Array.isArray(value)) throw new CrdtValueError('data must be an array for type array');
      for (let i = 0; i < value.length; i++) {
        if (!(i in value)) throw new CrdtValueError(`data[${i}] must be a JSON value`);
        checkEntry(value[i], `data[${i}]`);
      }
      return { type, items: value };
    case 'xml': {
      if (typeof value !== 'string') throw new CrdtValueError('data must be a string of XML for type xml');
      checkWellFormed(value, 'data');
      const nodes = parseXml(value);
      refuseProtoNames(nodes);
      return { type, nodes };
    }
    default:
      throw new CrdtValueError(`type must be one of ${CRDT_TYPES.join(', ')}`);
  }
}

/**
 * Yjs hands element attributes and text formatting back as objects built by
 * assignment, where a `__proto__` name would vanish.
 */
function refuseProtoNames(nodes: XmlNode[]): void {
  for (const node of nodes) {
    if (node.kind === 'text') continue;
    if (node.name === '__proto__' || node.attributes.has('__proto__')) {
      throw new CrdtValueError('data: elements and attributes named __proto__ cannot be stored');
    }
    refuseProtoNames(node.children);
  }
}
