import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { CrdtValueError, checkValue, clearValue, readValue, writeValue } from '../../server/domains/crdt/values/index.js';
import { DiffBudget, diffSequences } from '../../server/domains/crdt/values/sequence-diff.js';
import { type XmlNode, parseXml, serializeNodes } from '../../server/domains/crdt/values/xml.js';

/** What a client (or the server after a reload from the database) sees: the doc rebuilt from its encoded state. */
function reload(doc: Y.Doc): Y.Doc {
  const fresh = new Y.Doc();
  Y.applyUpdate(fresh, Y.encodeStateAsUpdate(doc));
  return fresh;
}

/** Exchanges what each doc lacks, both ways. */
function exchange(a: Y.Doc, b: Y.Doc): void {
  const toB = Y.encodeStateAsUpdate(a, Y.encodeStateVector(b));
  const toA = Y.encodeStateAsUpdate(b, Y.encodeStateVector(a));
  Y.applyUpdate(b, toB);
  Y.applyUpdate(a, toA);
}

function twoSyncedDocs(fill: (doc: Y.Doc) => void): [Y.Doc, Y.Doc] {
  const a = new Y.Doc();
  fill(a);
  const b = reload(a);
  return [a, b];
}

/** The updates `run` makes the doc emit. */
function updatesOf(doc: Y.Doc, run: () => void): Uint8Array[] {
  const updates: Uint8Array[] = [];
  const listener = (update: Uint8Array) => updates.push(update);
  doc.on('update', listener);
  try {
    run();
  } finally {
    doc.off('update', listener);
  }
  return updates;
}

function refusal(run: () => unknown): CrdtValueError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CrdtValueError);
    return error as CrdtValueError;
  }
  throw new Error('expected a CrdtValueError');
}

const sentence = (i: number) => `Sentence number ${i} says something about item ${i * 7}. `;
const longText = (sentences: number) => Array.from({ length: sentences }, (_, i) => sentence(i)).join('');

/** Letters from a seeded generator (mulberry32), so two seeds share only what chance gives. */
function randomLetters(seed: number, length: number): string {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return Array.from({ length }, () => String.fromCharCode(97 + Math.floor(next() * 26))).join('');
}

describe('text', () => {
  it('round-trips through a fresh doc', () => {
    for (const value of ['', 'plain', 'emoji 😀 and 👍🏽 and 家族', 'line\nbreaks\r\nand\ttabs']) {
      const doc = new Y.Doc();
      writeValue(doc, 'text', 'content', value);
      expect(readValue(reload(doc), 'text', 'content')).toBe(value);
    }
  });

  it('changes one sentence of a 100 KB text with an update far under 1 KB, touching only that sentence', () => {
    const before = longText(2000);
    expect(before.length).toBeGreaterThan(100_000);
    const after = before.replace(sentence(1000), 'This sentence was rewritten by the REST call. ');
    const doc = new Y.Doc();
    writeValue(doc, 'text', 'content', before);
    const deltas: unknown[] = [];
    doc.getText('content').observe((event) => deltas.push(event.delta));
    const updates = updatesOf(doc, () => expect(writeValue(doc, 'text', 'content', after)).toBe(true));
    expect(updates).toHaveLength(1);
    expect(updates[0]!.byteLength).toBeLessThan(1024);
    // One transaction, touching only the middle of the text.
    expect(deltas).toHaveLength(1);
    const delta = deltas[0] as { retain?: number; insert?: string; delete?: number }[];
    expect(delta[0]!.retain).toBeGreaterThanOrEqual(before.indexOf(sentence(1000)));
    const touched = delta.reduce((sum, op) => sum + (op.delete ?? 0) + (op.insert?.length ?? 0), 0);
    expect(touched).toBeLessThan(sentence(1000).length + 50);
    expect(readValue(reload(doc), 'text', 'content')).toBe(after);
  });

  it('never cuts a surrogate pair, even between emoji that share their first half', () => {
    // 😀 is D83D DE00 and 😁 is D83D DE01: a diff by UTF-16 unit would keep
    // D83D and replace only the second half, which Yjs turns into U+FFFD.
    const doc = new Y.Doc();
    writeValue(doc, 'text', 'content', 'a😀b😀c');
    const deltas: { retain?: number; insert?: string; delete?: number }[][] = [];
    doc.getText('content').observe((event) => deltas.push(event.delta as never));
    writeValue(doc, 'text', 'content', 'a😁b😀c😁');
    expect(readValue(reload(doc), 'text', 'content')).toBe('a😁b😀c😁');
    // 🈀 is D83C DE00: the same second half as 😀, so the common suffix must not start inside the pair.
    writeValue(doc, 'text', 'content', 'a😁b🈀c😁');
    expect(readValue(reload(doc), 'text', 'content')).toBe('a😁b🈀c😁');
    for (const op of deltas.flat()) {
      if (op.insert !== undefined) expect(op.insert).toMatch(/^(?:[^\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/);
      if (op.delete !== undefined) expect(op.delete % 2).toBe(0);
    }
  });

  it('returns false and emits no update when the value is unchanged', () => {
    const doc = new Y.Doc();
    writeValue(doc, 'text', 'content', 'same 😀');
    const updates = updatesOf(doc, () => expect(writeValue(doc, 'text', 'content', 'same 😀')).toBe(false));
    expect(updates).toHaveLength(0);
  });

  it('keeps a concurrent edit: B inserts at the start while A rewrites the last sentence from the old state', () => {
    const old = longText(5);
    const [a, b] = twoSyncedDocs((doc) => writeValue(doc, 'text', 'content', old));
    b.getText('content').insert(0, 'Meanwhile: ');
    writeValue(a, 'text', 'content', old.replace(sentence(4), 'The last sentence is new.'));
    exchange(a, b);
    const expected = `Meanwhile: ${old.replace(sentence(4), 'The last sentence is new.')}`;
    expect(readValue(a, 'text', 'content')).toBe(expected);
    expect(readValue(b, 'text', 'content')).toBe(expected);
  });

  it('keeps embeds and formatting outside the changed range, and reads them as plain text', () => {
    const doc = new Y.Doc();
    const text = doc.getText('content');
    text.insert(0, 'Hello brave new world');
    text.format(6, 5, { bold: true });
    text.insertEmbed(11, { image: 'x.png' });
    expect(readValue(doc, 'text', 'content')).toBe('Hello brave new world');
    writeValue(doc, 'text', 'content', 'Hello brave old world!');
    expect(readValue(doc, 'text', 'content')).toBe('Hello brave old world!');
    expect(text.toDelta()).toEqual([
      { insert: 'Hello ' },
      { insert: 'brave', attributes: { bold: true } },
      { insert: { image: 'x.png' } },
      { insert: ' old world!' },
    ]);
    // Deleting right up to the embed, or right from it, leaves it in place.
    writeValue(doc, 'text', 'content', 'Hello brav old world!');
    writeValue(doc, 'text', 'content', 'Hello bravold world!');
    expect(text.toDelta()).toEqual([
      { insert: 'Hello ' },
      { insert: 'brav', attributes: { bold: true } },
      { insert: { image: 'x.png' } },
      { insert: 'old world!' },
    ]);
    // Deleting the text on both sides of it takes it along.
    writeValue(doc, 'text', 'content', 'Hello world!');
    expect(text.toDelta()).toEqual([{ insert: 'Hello world!' }]);
  });

  it('replaces a text that shares little with the new one in one piece, not letter by letter', () => {
    const doc = new Y.Doc();
    writeValue(doc, 'text', 'content', randomLetters(1, 500));
    const updates = updatesOf(doc, () => writeValue(doc, 'text', 'content', randomLetters(2, 500)));
    // Kept letters they happen to share would cost an item each: several times this.
    expect(updates[0]!.byteLength).toBeLessThan(600);
    expect(readValue(reload(doc), 'text', 'content')).toBe(randomLetters(2, 500));
  });

  it('falls back to one replacement when two large texts have nothing in common, instead of spending seconds', () => {
    const doc = new Y.Doc();
    writeValue(doc, 'text', 'content', randomLetters(1, 30_000));
    const started = performance.now();
    writeValue(doc, 'text', 'content', randomLetters(2, 30_000));
    // A full Myers diff of these takes over ten seconds.
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(readValue(reload(doc), 'text', 'content')).toBe(randomLetters(2, 30_000));
  });
});

describe('map', () => {
  it('round-trips through a fresh doc, keys such as __proto__, constructor and toString included as own properties', () => {
    const value = JSON.parse(
      '{"__proto__":{"a":1},"constructor":"c","toString":[1,2],"hasOwnProperty":null,"nested":{"deep":[{"x":true,"y":1.5,"z":"s"}]},"":0}',
    ) as Record<string, unknown>;
    const doc = new Y.Doc();
    writeValue(doc, 'map', 'content', value);
    const read = readValue(reload(doc), 'map', 'content') as Record<string, unknown>;
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(Object.keys(read).sort()).toEqual(['', '__proto__', 'constructor', 'hasOwnProperty', 'nested', 'toString']);
    expect(Object.getOwnPropertyDescriptor(read, '__proto__')?.value).toEqual({ a: 1 });
    expect(JSON.stringify(read)).toBe(JSON.stringify(value));
  });

  it('sets only the keys that changed (deep equality, key order ignored) and deletes the keys that are gone', () => {
    const doc = new Y.Doc();
    writeValue(doc, 'map', 'content', { keep: { a: 1, b: [1, 2] }, change: 1, drop: 'x' });
    const changed: string[][] = [];
    doc.getMap('content').observe((event) => changed.push([...event.keysChanged].sort()));
    writeValue(doc, 'map', 'content', { keep: { b: [1, 2], a: 1 }, change: 2, add: null });
    expect(changed).toEqual([['add', 'change', 'drop']]);
    expect(readValue(doc, 'map', 'content')).toEqual({ keep: { a: 1, b: [1, 2] }, change: 2, add: null });
  });

  it('returns false and emits no update when the value is unchanged', () => {
    const doc = new Y.Doc();
    writeValue(doc, 'map', 'content', { a: { b: [1, 'x', null] } });
    const updates = updatesOf(doc, () => expect(writeValue(doc, 'map', 'content', { a: { b: [1, 'x', null] } })).toBe(false));
    expect(updates).toHaveLength(0);
  });

  it('keeps a concurrent edit: B sets another key while A changes one from the old state', () => {
    const [a, b] = twoSyncedDocs((doc) => writeValue(doc, 'map', 'content', { title: 'Old', count: 1 }));
    b.getMap('content').set('byClient', true);
    writeValue(a, 'map', 'content', { title: 'New', count: 1 });
    exchange(a, b);
    // A's value was computed before it knew of byClient, yet does not delete it:
    // the delete of a key A never saw is not part of A's edit.
    const expected = { title: 'New', count: 1, byClient: true };
    expect(readValue(a, 'map', 'content')).toEqual(expected);
    expect(readValue(b, 'map', 'content')).toEqual(expected);
  });

  it('refuses __proto__ inside nested values, because lib0 drops it on the way through an update', () => {
    // The proof: stored directly, the key is there; after encode/decode it is
    // gone (it became the object's prototype), so clients and a reloaded
    // server would see another value than the one written.
    const doc = new Y.Doc();
    doc.getMap('content').set('x', JSON.parse('{"a":{"__proto__":{"polluted":1},"b":2}}'));
    expect(JSON.stringify(doc.getMap('content').get('x'))).toBe('{"a":{"__proto__":{"polluted":1},"b":2}}');
    const decoded = reload(doc).getMap('content').get('x') as { a: Record<string, unknown> };
    expect(Object.keys(decoded.a)).toEqual(['b']);
    expect(decoded.a.polluted).toBe(1);

    const error = refusal(() => checkValue('map', JSON.parse('{"x":{"a":{"__proto__":1}}}')));
    expect(error.message).toContain('keys named __proto__ cannot be stored inside nested values');
    expect(error.message).toContain('data.x.a');
    refusal(() => checkValue('array', JSON.parse('[[{"__proto__":null}]]')));
    refusal(() => writeValue(new Y.Doc(), 'map', 'content', JSON.parse('{"x":{"__proto__":1}}')));
  });

  it('refuses an object with a key "constructor" as a direct map value or array element, which Yjs cannot store', () => {
    expect(() => new Y.Doc().getMap('m').set('x', { constructor: 'c' })).toThrow('Unexpected content type');
    expect(() => new Y.Doc().getArray('a').insert(0, [{ constructor: 'c' }])).toThrow('Unexpected content type');
    refusal(() => checkValue('map', { x: { constructor: 'c' } }));
    refusal(() => checkValue('array', [{ constructor: 'c' }]));
    // One level deeper lib0 encodes it like any key.
    const doc = new Y.Doc();
    writeValue(doc, 'map', 'content', { x: { inner: { constructor: 'c' } } });
    expect(readValue(reload(doc), 'map', 'content')).toEqual({ x: { inner: { constructor: 'c' } } });
  });

  it('reads values that clients stored as nested shared types', () => {
    const doc = new Y.Doc();
    const nested = new Y.Map<unknown>();
    doc.getMap('content').set('settings', nested);
    nested.set('theme', 'dark');
    nested.set('tags', Y.Array.from(['a', 'b']));
    expect(readValue(reload(doc), 'map', 'content')).toEqual({ settings: { theme: 'dark', tags: ['a', 'b'] } });
    expect(writeValue(doc, 'map', 'content', { settings: { tags: ['a', 'b'], theme: 'dark' } })).toBe(false);
  });

  it('does not share objects with the caller in either direction', () => {
    const value = { a: { list: [1] } };
    const doc = new Y.Doc();
    writeValue(doc, 'map', 'content', value);
    value.a.list.push(2);
    const read = readValue(doc, 'map', 'content') as { a: { list: number[] } };
    expect(read).toEqual({ a: { list: [1] } });
    read.a.list.push(3);
    expect(readValue(doc, 'map', 'content')).toEqual({ a: { list: [1] } });
  });
});

describe('array', () => {
  it('round-trips through a fresh doc', () => {
    const value = [1, -2.5, 'x', null, true, [1, [2]], { a: { b: 'c' } }, {}, []];
    const doc = new Y.Doc();
    writeValue(doc, 'array', 'content', value);
    expect(readValue(reload(doc), 'array', 'content')).toEqual(value);
  });

  it('replaces only the changed element of a long array', () => {
    const before = Array.from({ length: 1000 }, (_, i) => ({ id: i, label: `item ${i}` }));
    const after = before.map((item) => (item.id === 500 ? { ...item, label: 'changed' } : item));
    const doc = new Y.Doc();
    writeValue(doc, 'array', 'content', before);
    const deltas: unknown[] = [];
    doc.getArray('content').observe((event) => deltas.push(event.delta));
    const updates = updatesOf(doc, () => writeValue(doc, 'array', 'content', after));
    expect(deltas).toEqual([[{ retain: 500 }, { insert: [{ id: 500, label: 'changed' }] }, { delete: 1 }]]);
    expect(updates[0]!.byteLength).toBeLessThan(200);
    expect(readValue(reload(doc), 'array', 'content')).toEqual(after);
  });

  it('keeps unchanged elements between two changed ones', () => {
    const doc = new Y.Doc();
    writeValue(doc, 'array', 'content', ['a', 'b', 'c', 'd', 'e']);
    const deltas: unknown[] = [];
    doc.getArray('content').observe((event) => deltas.push(event.delta));
    writeValue(doc, 'array', 'content', ['x', 'b', 'c', 'd', 'y', 'e']);
    expect(deltas).toEqual([[{ insert: ['x'] }, { delete: 1 }, { retain: 3 }, { insert: ['y'] }]]);
  });

  it('returns false and emits no update when the value is unchanged', () => {
    const doc = new Y.Doc();
    writeValue(doc, 'array', 'content', [{ a: 1, b: 2 }, 'x']);
    const updates = updatesOf(doc, () => expect(writeValue(doc, 'array', 'content', [{ b: 2, a: 1 }, 'x'])).toBe(false));
    expect(updates).toHaveLength(0);
  });

  it('keeps a concurrent edit: B pushes while A changes the first element from the old state', () => {
    const [a, b] = twoSyncedDocs((doc) => writeValue(doc, 'array', 'content', ['first', 'second', 'third']));
    b.getArray('content').push(['pushed by B']);
    writeValue(a, 'array', 'content', ['FIRST', 'second', 'third']);
    exchange(a, b);
    const expected = ['FIRST', 'second', 'third', 'pushed by B'];
    expect(readValue(a, 'array', 'content')).toEqual(expected);
    expect(readValue(b, 'array', 'content')).toEqual(expected);
  });
});

describe('xml', () => {
  it('parses and prints the canonical form: sorted attributes, double quotes, escaped text, references resolved', () => {
    const source =
      "<heading level='2' align=\"left\">A &amp; B &lt;c&gt; &quot;d&quot; &apos;e&apos; &#65;&#x1F600;</heading>" +
      '<p a = "x &quot;y&quot; &lt;z&gt;"/><empty></empty>text > tail';
    expect(serializeNodes(parseXml(source))).toBe(
      '<heading align="left" level="2">A &amp; B &lt;c&gt; "d" \'e\' A😀</heading>' +
        '<p a="x &quot;y&quot; &lt;z&gt;"></p><empty></empty>text &gt; tail',
    );
  });

  it('refuses what it cannot represent or is malformed', () => {
    const bad = [
      '<p>open',
      '<p></q>',
      '</p>',
      '<p><b></p></b>',
      '<!-- comment -->',
      '<![CDATA[x]]>',
      '<?xml version="1.0"?><p/>',
      '<!DOCTYPE p><p/>',
      '<p>&nbsp;</p>',
      '<p>a & b</p>',
      '<p>&#xD800;</p>',
      '<p>&#0;</p>',
      '<p a=1></p>',
      '<p a="1" a="2"></p>',
      '<p a="<"></p>',
      '<p a="1"b="2"></p>',
      '<p a="1></p>',
      '<1p></1p>',
      '< p></p>',
      '<p __proto__="x"></p>',
      `${'<d>'.repeat(101)}${'</d>'.repeat(101)}`,
    ];
    for (const source of bad) expect(() => checkValue('xml', source), source).toThrow(CrdtValueError);
    expect(refusal(() => checkValue('xml', '<p></q>')).message).toBe(
      'data is not valid XML: closing tag </q> does not match <p> (at offset 3)',
    );
  });

  it('round-trips through a fresh doc and reads back the canonical form of what was written', () => {
    const source = '<paragraph b="2" a="1">Hello <bold>world</bold></paragraph><heading level="2">T</heading><hr/>\n';
    const doc = new Y.Doc();
    writeValue(doc, 'xml', 'default', source);
    const canonical = serializeNodes(parseXml(source));
    expect(readValue(reload(doc), 'xml', 'default')).toBe(canonical);
    expect(writeValue(doc, 'xml', 'default', canonical)).toBe(false);
    const element = doc.getXmlFragment('default').get(0) as Y.XmlElement;
    expect(element.nodeName).toBe('paragraph');
    expect(element.getAttributes()).toEqual({ a: '1', b: '2' });
  });

  it('edits one paragraph of many in place: other paragraphs stay the same objects and the update is small', () => {
    const paragraphs = Array.from({ length: 200 }, (_, i) => `<paragraph>${sentence(i)}</paragraph>`);
    const doc = new Y.Doc();
    writeValue(doc, 'xml', 'default', paragraphs.join(''));
    const fragment = doc.getXmlFragment('default');
    const before = fragment.toArray();
    const changed = [...paragraphs];
    changed[100] = `<paragraph>${sentence(100).replace('something', 'nothing')}</paragraph>`;
    const updates = updatesOf(doc, () => writeValue(doc, 'xml', 'default', changed.join('')));
    expect(fragment.toArray()).toEqual(before);
    expect(updates).toHaveLength(1);
    expect(updates[0]!.byteLength).toBeLessThan(200);
    expect(readValue(reload(doc), 'xml', 'default')).toBe(changed.join(''));
  });

  it('updates changed attributes in place and replaces an element whose name changed', () => {
    const doc = new Y.Doc();
    writeValue(doc, 'xml', 'default', '<heading level="1" id="h">Title</heading><paragraph>Body</paragraph>');
    const [heading, paragraph] = doc.getXmlFragment('default').toArray();
    writeValue(doc, 'xml', 'default', '<heading level="2">Title</heading><blockquote>Body</blockquote>');
    const [headingAfter, quote] = doc.getXmlFragment('default').toArray();
    expect(headingAfter).toBe(heading);
    expect((headingAfter as Y.XmlElement).getAttributes()).toEqual({ level: '2' });
    expect(quote).not.toBe(paragraph);
    expect(readValue(doc, 'xml', 'default')).toBe('<heading level="2">Title</heading><blockquote>Body</blockquote>');
  });

  it('keeps a concurrent edit: B types into the first paragraph while A changes the third from the old state', () => {
    const old = '<paragraph>One</paragraph><paragraph>Two</paragraph><paragraph>Three</paragraph>';
    const [a, b] = twoSyncedDocs((doc) => writeValue(doc, 'xml', 'default', old));
    const firstText = (b.getXmlFragment('default').get(0) as Y.XmlElement).get(0) as Y.XmlText;
    firstText.insert(3, ' and a half');
    writeValue(a, 'xml', 'default', '<paragraph>One</paragraph><paragraph>Two</paragraph><paragraph>Three!</paragraph>');
    exchange(a, b);
    const expected = '<paragraph>One and a half</paragraph><paragraph>Two</paragraph><paragraph>Three!</paragraph>';
    expect(readValue(a, 'xml', 'default')).toBe(expected);
    expect(readValue(b, 'xml', 'default')).toBe(expected);
  });

  it('keeps y-prosemirror marks as text formatting: what was read writes back unchanged, and edits stay marks', () => {
    // How Tiptap stores "Hello **world**" and a level-2 heading.
    const doc = new Y.Doc();
    const fragment = doc.getXmlFragment('default');
    const paragraph = new Y.XmlElement('paragraph');
    const heading = new Y.XmlElement('heading');
    fragment.insert(0, [paragraph, heading]);
    heading.setAttribute('level', 2 as never);
    heading.insert(0, [new Y.XmlText('T')]);
    const text = new Y.XmlText();
    paragraph.insert(0, [text]);
    text.insert(0, 'Hello ');
    text.insert(6, 'world', { bold: {} });
    text.insert(11, ' and a link', { link: { href: 'https://x.test/?a=1&b="2"', target: null } });

    const read = readValue(doc, 'xml', 'default') as string;
    expect(read).toBe(
      '<paragraph>Hello <bold>world</bold><link href="https://x.test/?a=1&amp;b=&quot;2&quot;"> and a link</link></paragraph>' +
        '<heading level="2">T</heading>',
    );
    expect(updatesOf(doc, () => expect(writeValue(doc, 'xml', 'default', read)).toBe(false))).toHaveLength(0);

    writeValue(doc, 'xml', 'default', read.replace('<bold>world</bold>', 'big <bold>wide <link href="y">world</link></bold>'));
    expect(paragraph.toArray()).toEqual([text]);
    expect(text.toDelta()).toEqual([
      { insert: 'Hello big ' },
      { insert: 'wide ', attributes: { bold: {} } },
      { insert: 'world', attributes: { bold: {}, link: { href: 'y' } } },
      { insert: ' and a link', attributes: { link: { href: 'https://x.test/?a=1&b="2"', target: null } } },
    ]);
  });

  it('makes an element of a name the fragment does not use as a mark, having no schema to know better', () => {
    const doc = new Y.Doc();
    writeValue(doc, 'xml', 'default', '<paragraph>Hello <italic>world</italic></paragraph>');
    const paragraph = doc.getXmlFragment('default').get(0) as Y.XmlElement;
    expect(paragraph.toArray().map((node) => node.constructor)).toEqual([Y.XmlText, Y.XmlElement]);
  });
});

describe('root type kinds', () => {
  it('refuses a key that holds another kind of type', () => {
    const doc = new Y.Doc();
    doc.getText('x').insert(0, 'text');
    const error = refusal(() => writeValue(doc, 'map', 'x', {}));
    expect(error.message).toBe('the document holds a text under contentKey "x", not a map');
    refusal(() => readValue(doc, 'xml', 'x'));
    refusal(() => clearValue(doc, 'array', 'x'));
    expect(readValue(doc, 'text', 'x')).toBe('text');
  });

  it('accepts a root loaded from an update and not yet typed, unless its content shows another kind', () => {
    const source = new Y.Doc();
    source.getMap('m').set('a', 1);
    source.getArray('l').push([1]);
    source.getXmlFragment('x').insert(0, [new Y.XmlElement('p')]);
    source.getText('t').insert(0, 'hi');
    const emptied = source.getText('e');
    emptied.insert(0, 'gone');
    emptied.delete(0, 4);

    const loaded = reload(source);
    expect(loaded.share.get('m')?.constructor).toBe(Y.AbstractType);
    expect(refusal(() => writeValue(loaded, 'text', 'm', 'x')).message).toContain('holds a map');
    expect(refusal(() => readValue(loaded, 'array', 't')).message).toContain('holds a text');
    expect(refusal(() => readValue(loaded, 'xml', 'l')).message).toContain('holds an array');
    expect(refusal(() => readValue(loaded, 'array', 'x')).message).toContain('holds an XML fragment');
    expect(readValue(loaded, 'map', 'm')).toEqual({ a: 1 });
    expect(readValue(loaded, 'array', 'l')).toEqual([1]);
    expect(readValue(loaded, 'xml', 'x')).toBe('<p></p>');
    expect(writeValue(loaded, 'text', 't', 'hi!')).toBe(true);
    expect(writeValue(loaded, 'map', 'e', { now: 'a map' })).toBe(true);
  });

  it('reads an absent key as empty without creating it', () => {
    const doc = new Y.Doc();
    expect(readValue(doc, 'text', 'k')).toBe('');
    expect(readValue(doc, 'map', 'k')).toEqual({});
    expect(readValue(doc, 'array', 'k')).toEqual([]);
    expect(readValue(doc, 'xml', 'k')).toBe('');
    expect(doc.share.has('k')).toBe(false);
  });
});

describe('clearValue', () => {
  it('empties each type in one transaction', () => {
    const values = { text: 'abc 😀', map: { a: 1, b: 2 }, array: [1, 2, 3], xml: '<p>a</p><p>b</p>' } as const;
    for (const type of ['text', 'map', 'array', 'xml'] as const) {
      const doc = new Y.Doc();
      writeValue(doc, type, 'content', values[type]);
      expect(updatesOf(doc, () => clearValue(doc, type, 'content', 'origin'))).toHaveLength(1);
      expect(readValue(reload(doc), type, 'content')).toEqual({ text: '', map: {}, array: [], xml: '' }[type]);
      expect(updatesOf(doc, () => clearValue(doc, type, 'content'))).toHaveLength(0);
    }
  });
});

describe('writeValue transactions', () => {
  it('applies the whole edit in one transaction carrying the origin', () => {
    const doc = new Y.Doc();
    writeValue(doc, 'array', 'content', [1, 2, 3, 4]);
    const origins: unknown[] = [];
    doc.on('afterTransaction', (transaction: Y.Transaction) => origins.push(transaction.origin));
    const origin = { source: 'rest' };
    writeValue(doc, 'array', 'content', [0, 2, 3, 5], origin);
    expect(origins).toEqual([origin]);
  });
});

describe('checkValue', () => {
  it('requires the shape of the type', () => {
    expect(refusal(() => checkValue('text', 1)).message).toBe('data must be a string for type text');
    expect(refusal(() => checkValue('xml', {})).message).toBe('data must be a string of XML for type xml');
    expect(refusal(() => checkValue('map', [])).message).toBe('data must be an object for type map');
    refusal(() => checkValue('map', null));
    refusal(() => checkValue('map', new Date()));
    expect(refusal(() => checkValue('array', {})).message).toBe('data must be an array for type array');
    refusal(() => checkValue('other' as never, ''));
    checkValue('text', '');
    checkValue('xml', '');
    checkValue('map', Object.create(null));
    checkValue('array', []);
  });

  it('accepts JSON values only, naming where the bad one is', () => {
    expect(refusal(() => checkValue('map', { a: { b: [1, Number.NaN] } })).message).toBe('data.a.b[1] must be a finite number');
    refusal(() => checkValue('array', [Number.POSITIVE_INFINITY]));
    expect(refusal(() => checkValue('map', { 'a b': undefined })).message).toContain('data["a b"] must be a JSON value');
    refusal(() => checkValue('array', [new Date()]));
    refusal(() => checkValue('array', [new Uint8Array(1)]));
    refusal(() => checkValue('array', [() => 1]));
    refusal(() => checkValue('array', [1n]));
    // eslint-disable-next-line no-sparse-arrays
    refusal(() => checkValue('array', [1, , 3]));
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = [deep];
    checkValue('array', [deep].flat());
    expect(refusal(() => checkValue('array', [deep])).message).toContain('nested more than 100 levels');
  });

  it('refuses unpaired surrogates, which Yjs would store as U+FFFD', () => {
    const doc = new Y.Doc();
    doc.getText('t').insert(0, 'a\ud800b');
    expect(reload(doc).getText('t').toString()).toBe('a\ufffdb');
    for (const [type, value] of [
      ['text', 'a\ud800b'],
      ['xml', '<p>\udc00</p>'],
      ['map', { '\ud800': 1 }],
      ['map', { a: ['\udfff'] }],
      ['array', [{ ['k\ud800']: 1 }]],
    ] as const) {
      refusal(() => checkValue(type, value));
    }
    checkValue('text', '😀');
  });
});

describe('diffSequences', () => {
  /** Length of a longest common subsequence, by dynamic programming. */
  const lcs = (a: number[], b: number[]) => {
    let row = new Array<number>(b.length + 1).fill(0);
    for (const x of a) {
      const next = [0];
      for (let j = 0; j < b.length; j++) next.push(x === b[j] ? row[j]! + 1 : Math.max(row[j + 1]!, next[j]!));
      row = next;
    }
    return row[b.length]!;
  };

  it('finds a shortest edit script whose hunks turn a into b', () => {
    const sequence = fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 40 });
    fc.assert(
      fc.property(sequence, sequence, (a, b) => {
        const hunks = diffSequences(a, b, new DiffBudget());
        const result = [...a];
        for (const hunk of [...hunks].reverse()) {
          result.splice(hunk.aStart, hunk.aEnd - hunk.aStart, ...b.slice(hunk.bStart, hunk.bEnd));
        }
        expect(result).toEqual(b);
        const edited = hunks.reduce((sum, hunk) => sum + hunk.aEnd - hunk.aStart + hunk.bEnd - hunk.bStart, 0);
        expect(edited).toBe(a.length + b.length - 2 * lcs(a, b));
      }),
      { numRuns: 500 },
    );
  });

  it('replaces the middle as a whole once the budget is spent', () => {
    expect(diffSequences([9, 1, 2, 3, 9], [9, 3, 2, 1, 9], new DiffBudget(0))).toEqual([{ aStart: 1, aEnd: 4, bStart: 1, bEnd: 4 }]);
    expect(diffSequences([1, 2], [1, 2], new DiffBudget(0))).toEqual([]);
  });
});

describe('properties', () => {
  const textUnit = fc.constantFrom('a', 'b', ' ', '.', '\n', 'é', '😀', '😁', '🈀', '👍🏽', '&', '<');
  const texts = fc.oneof(
    fc.string({ unit: textUnit, maxLength: 60 }),
    fc.string({ unit: 'binary', maxLength: 30 }).filter((s) => !/\p{Cs}/u.test(s)),
  );

  it('text: after writing a then b, b is read back, here and after a reload', () => {
    fc.assert(
      fc.property(texts, texts, (a, b) => {
        const doc = new Y.Doc();
        writeValue(doc, 'text', 'content', a);
        expect(writeValue(doc, 'text', 'content', b)).toBe(a !== b);
        expect(readValue(doc, 'text', 'content')).toBe(b);
        expect(readValue(reload(doc), 'text', 'content')).toBe(b);
      }),
      { numRuns: 300 },
    );
  });

  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom(null, true, false, 0, 1, -1.5, 'x', 'y', ''),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(fc.constantFrom('a', 'b', 'c d'), tie('value'), { maxKeys: 3 }),
    ),
  })).value;
  const arrays = fc.array(json, { maxLength: 12 });

  it('array: after writing a then b, b is read back, here and after a reload', () => {
    fc.assert(
      fc.property(arrays, arrays, (a, b) => {
        const doc = new Y.Doc();
        writeValue(doc, 'array', 'content', a);
        writeValue(doc, 'array', 'content', b);
        expect(readValue(doc, 'array', 'content')).toEqual(b);
        expect(readValue(reload(doc), 'array', 'content')).toEqual(b);
      }),
      { numRuns: 300 },
    );
  });

  // Built from entries so that a key __proto__ becomes an own property, as JSON.parse makes it.
  const maps = fc
    .uniqueArray(fc.tuple(fc.constantFrom('a', 'b', 'c', '__proto__', 'constructor', 'toString', ''), json), {
      selector: ([key]) => key,
      maxLength: 6,
    })
    .map((entries) => Object.fromEntries(entries) as Record<string, unknown>);

  it('map: after writing a then b, b is read back, here and after a reload', () => {
    fc.assert(
      fc.property(maps, maps, (a, b) => {
        const doc = new Y.Doc();
        writeValue(doc, 'map', 'content', a);
        writeValue(doc, 'map', 'content', b);
        expect(JSON.stringify(readValue(doc, 'map', 'content'))).toBe(JSON.stringify(readValue(reload(doc), 'map', 'content')));
        const read = readValue(reload(doc), 'map', 'content') as Record<string, unknown>;
        expect(Object.keys(read).sort()).toEqual(Object.keys(b).sort());
        for (const key of Object.keys(b)) expect(Object.getOwnPropertyDescriptor(read, key)?.value).toEqual(b[key]);
      }),
      { numRuns: 300 },
    );
  });

  const xmlTrees = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      fc.record({ kind: fc.constant('text' as const), text: fc.string({ unit: textUnit, minLength: 1, maxLength: 8 }) }),
      fc.record({
        kind: fc.constant('element' as const),
        name: fc.constantFrom('p', 'heading', 'bold', 'listItem'),
        attributes: fc
          .uniqueArray(fc.tuple(fc.constantFrom('level', 'id', 'x-y'), fc.string({ unit: textUnit, maxLength: 4 })), {
            selector: ([key]) => key,
            maxLength: 2,
          })
          .map((entries) => new Map(entries)),
        children: fc.array(tie('node'), { maxLength: 3 }),
      }),
    ),
  })).node as fc.Arbitrary<XmlNode>;
  const xmlDocs = fc.array(xmlTrees, { maxLength: 5 }).map((nodes) => serializeNodes(nodes));

  it('xml: printing parses back to the same print; after writing a then b, the canonical b is read back', () => {
    fc.assert(
      fc.property(xmlDocs, xmlDocs, (a, b) => {
        const canonical = serializeNodes(parseXml(b));
        expect(serializeNodes(parseXml(canonical))).toBe(canonical);
        const doc = new Y.Doc();
        writeValue(doc, 'xml', 'default', a);
        writeValue(doc, 'xml', 'default', b);
        expect(readValue(doc, 'xml', 'default')).toBe(canonical);
        expect(readValue(reload(doc), 'xml', 'default')).toBe(canonical);
        expect(writeValue(doc, 'xml', 'default', readValue(doc, 'xml', 'default'))).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('xml with marks: writing back what was read never changes the document', () => {
    // A Tiptap-like fragment: paragraphs of text formatted with marks.
    const runs = fc.array(
      fc.record({
        text: fc.string({ unit: textUnit, minLength: 1, maxLength: 6 }),
        marks: fc.subarray(['bold', 'italic', 'link']),
      }),
      { maxLength: 4 },
    );
    fc.assert(
      fc.property(fc.array(runs, { minLength: 1, maxLength: 3 }), (paragraphs) => {
        const doc = new Y.Doc();
        const fragment = doc.getXmlFragment('default');
        for (const paragraphRuns of paragraphs) {
          const paragraph = new Y.XmlElement('paragraph');
          fragment.push([paragraph]);
          const text = new Y.XmlText();
          paragraph.push([text]);
          for (const run of paragraphRuns) {
            const attributes = Object.fromEntries(run.marks.map((mark) => [mark, mark === 'link' ? { href: 'h' } : {}]));
            text.insert(text.length, run.text, attributes);
          }
        }
        const updates = updatesOf(doc, () => writeValue(doc, 'xml', 'default', readValue(doc, 'xml', 'default')));
        expect(updates).toHaveLength(0);
      }),
      { numRuns: 200 },
    );
  });
});
