import * as Y from 'yjs';
import { CrdtValueError } from './errors.js';

export type CrdtType = 'text' | 'map' | 'array' | 'xml';
export const CRDT_TYPES: readonly CrdtType[] = ['text', 'map', 'array', 'xml'];

export type RootOf<T extends CrdtType> = { text: Y.Text; map: Y.Map<unknown>; array: Y.Array<unknown>; xml: Y.XmlFragment }[T];

const LABELS: Record<CrdtType | 'other', string> = {
  text: 'a text',
  map: 'a map',
  array: 'an array',
  xml: 'an XML fragment',
  other: 'another kind of shared type',
};

function concreteKind(type: Y.AbstractType<any>): CrdtType | 'other' {
  switch (type.constructor) {
    case Y.Text:
      return 'text';
    case Y.Map:
      return 'map';
    case Y.Array:
      return 'array';
    case Y.XmlFragment:
      return 'xml';
    default:
      return 'other';
  }
}

/**
 * A root type loaded from an update and not yet asked for by name is a bare
 * AbstractType; Yjs lets any getX convert it, even when its content belongs
 * to another kind, which would mix two kinds under one key. Its content
 * tells what it is: keyed entries make a map, and the first live list item
 * says text, XML or array. Null when it holds nothing.
 */
function inferredKind(type: Y.AbstractType<any>): CrdtType | null {
  for (const item of type._map.values()) if (!item.deleted) return 'map';
  for (let item = type._start; item !== null; item = item.right) {
    if (item.deleted) continue;
    const content = item.content;
    if (content instanceof Y.ContentString || content instanceof Y.ContentEmbed || content instanceof Y.ContentFormat) return 'text';
    if (content instanceof Y.ContentType) {
      const inner = content.type;
      return inner instanceof Y.XmlElement || inner instanceof Y.XmlText || inner instanceof Y.XmlHook ? 'xml' : 'array';
    }
    return 'array';
  }
  return null;
}

function typed<T extends CrdtType>(doc: Y.Doc, type: T, key: string): RootOf<T> {
  switch (type) {
    case 'text':
      return doc.getText(key) as RootOf<T>;
    case 'map':
      return doc.getMap<unknown>(key) as RootOf<T>;
    case 'array':
      return doc.getArray<unknown>(key) as RootOf<T>;
    default:
      return doc.getXmlFragment(key) as RootOf<T>;
  }
}

/** The root type under `key` as `type`, or null when the document has none. Throws on a kind conflict. */
export function findRoot<T extends CrdtType>(doc: Y.Doc, type: T, key: string): RootOf<T> | null {
  const existing = doc.share.get(key);
  if (existing === undefined) return null;
  const kind = existing.constructor === Y.AbstractType ? inferredKind(existing) : concreteKind(existing);
  if (kind !== null && kind !== type) {
    throw new CrdtValueError(`the document holds ${LABELS[kind]} under contentKey ${JSON.stringify(key)}, not ${LABELS[type]}`);
  }
  return typed(doc, type, key);
}

/** The root type under `key` as `type`, created when absent. Throws on a kind conflict. */
export function getRoot<T extends CrdtType>(doc: Y.Doc, type: T, key: string): RootOf<T> {
  return findRoot(doc, type, key) ?? typed(doc, type, key);
}
