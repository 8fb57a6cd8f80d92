import { CrdtValueError } from './errors.js';
import { MAX_DEPTH } from './limits.js';

/**
 * The XML form of a Y.XmlFragment: elements with string attributes, and text.
 * Adjacent text is one node; no node is empty text.
 */
export type XmlNode = XmlElementNode | XmlTextNode;
export interface XmlElementNode {
  kind: 'element';
  name: string;
  attributes: Map<string, string>;
  children: XmlNode[];
}
export interface XmlTextNode {
  kind: 'text';
  text: string;
}

const NAME = /[\p{L}_:][\p{L}\p{N}_:.\-\u00B7]*/uy;
const SPACE = /[ \t\r\n]+/y;
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

export const escapeText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
export const escapeAttribute = (text: string) => escapeText(text).replace(/"/g, '&quot;');

/**
 * The canonical form that reads of xml data return: attributes sorted by
 * name, `& < >` escaped in text and also `"` in attribute values, which are
 * always double-quoted, and an empty element written as `<a></a>` (as Yjs
 * itself prints it).
 */
export function serializeNodes(nodes: readonly XmlNode[]): string {
  return nodes.map(serializeNode).join('');
}

function serializeNode(node: XmlNode): string {
  if (node.kind === 'text') return escapeText(node.text);
  return `${openTag(node.name, node.attributes)}${serializeNodes(node.children)}</${node.name}>`;
}

export function openTag(name: string, attributes: ReadonlyMap<string, string>): string {
  const names = [...attributes.keys()].sort();
  return `<${name}${names.map((key) => ` ${key}="${escapeAttribute(attributes.get(key)!)}"`).join('')}>`;
}

/**
 * A strict parser for the subset of XML that maps onto Yjs XML types:
 * elements, attributes, text and character references. Comments, CDATA,
 * processing instructions and DTDs have no Yjs counterpart and are refused,
 * as is anything malformed. Whitespace is kept as written.
 */
export function parseXml(source: string): XmlNode[] {
  return new Parser(source).parseDocument();
}

class Parser {
  private pos = 0;

  constructor(private readonly source: string) {}

  parseDocument(): XmlNode[] {
    const root: XmlNode[] = [];
    const open: { node: XmlElementNode; at: number }[] = [];
    let children = root;
    let text = '';
    const flush = () => {
      if (text.length > 0) children.push({ kind: 'text', text });
      text = '';
    };
    while (this.pos < this.source.length) {
      const lt = this.source.indexOf('<', this.pos);
      const textEnd = lt === -1 ? this.source.length : lt;
      text += this.decode(this.source.slice(this.pos, textEnd), this.pos);
      this.pos = textEnd;
      if (lt === -1) break;
      flush();
      const next = this.source[lt + 1];
      if (next === '!' || next === '?') {
        this.fail('comments, CDATA sections, processing instructions and DTDs are not supported', lt);
      }
      if (next === '/') {
        this.pos = lt + 2;
        const name = this.name();
        this.skipSpace();
        this.expect('>');
        const top = open.pop();
        if (!top) this.fail(`closing tag </${name}> has no matching opening tag`, lt);
        if (top.node.name !== name) this.fail(`closing tag </${name}> does not match <${top.node.name}>`, lt);
        const parent = open[open.length - 1];
        children = parent ? parent.node.children : root;
        continue;
      }
      this.pos = lt + 1;
      const element = this.startTag();
      children.push(element.node);
      if (!element.selfClosing) {
        if (open.length >= MAX_DEPTH) this.fail(`elements are nested more than ${MAX_DEPTH} levels deep`, lt);
        open.push({ node: element.node, at: lt });
        children = element.node.children;
      }
    }
    flush();
    const unclosed = open.pop();
    if (unclosed) this.fail(`<${unclosed.node.name}> is not closed`, unclosed.at);
    return root;
  }

  private startTag(): { node: XmlElementNode; selfClosing: boolean } {
    const name = this.name();
    const attributes = new Map<string, string>();
    for (;;) {
      const spaced = this.skipSpace();
      if (this.source.startsWith('/>', this.pos)) {
        this.pos += 2;
        return { node: { kind: 'element', name, attributes, children: [] }, selfClosing: true };
      }
      if (this.source[this.pos] === '>') {
        this.pos += 1;
        return { node: { kind: 'element', name, attributes, children: [] }, selfClosing: false };
      }
      if (!spaced) this.fail(`expected whitespace, ">" or "/>" in <${name}>`, this.pos);
      const at = this.pos;
      const key = this.name();
      if (attributes.has(key)) this.fail(`attribute "${key}" appears twice in <${name}>`, at);
      this.skipSpace();
      this.expect('=');
      this.skipSpace();
      const quote = this.source[this.pos];
      if (quote !== '"' && quote !== "'") this.fail(`the value of attribute "${key}" must be quoted`, this.pos);
      const end = this.source.indexOf(quote, this.pos + 1);
      if (end === -1) this.fail(`the value of attribute "${key}" is not closed`, this.pos);
      const raw = this.source.slice(this.pos + 1, end);
      const lt = raw.indexOf('<');
      if (lt !== -1) this.fail(`"<" must be written as &lt; in attribute values`, this.pos + 1 + lt);
      attributes.set(key, this.decode(raw, this.pos + 1));
      this.pos = end + 1;
    }
  }

  private name(): string {
    NAME.lastIndex = this.pos;
    const match = NAME.exec(this.source);
    if (!match) this.fail('expected a name', this.pos);
    this.pos += match[0].length;
    return match[0];
  }

  private skipSpace(): boolean {
    SPACE.lastIndex = this.pos;
    const match = SPACE.exec(this.source);
    if (match) this.pos += match[0].length;
    return match !== null;
  }

  private expect(char: string): void {
    if (this.source[this.pos] !== char) this.fail(`expected "${char}"`, this.pos);
    this.pos += 1;
  }

  /** Resolves entity and character references; `at` is where `raw` starts in the source. */
  private decode(raw: string, at: number): string {
    if (!raw.includes('&')) return raw;
    return raw.replace(/&([^;&<\s]*);?/g, (match, body: string, offset: number) => {
      if (!match.endsWith(';')) this.fail('"&" must start a reference such as &amp;', at + offset);
      const named = Object.hasOwn(ENTITIES, body) ? ENTITIES[body] : undefined;
      if (named !== undefined) return named;
      const numeric = /^#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}))$/.exec(body);
      const code = numeric ? parseInt(numeric[1] ?? numeric[2]!, numeric[1] ? 16 : 10) : NaN;
      const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
      if (!valid) this.fail(`unknown or invalid reference ${match}`, at + offset);
      return String.fromCodePoint(code);
    });
  }

  private fail(message: string, at: number): never {
    throw new CrdtValueError(`data is not valid XML: ${message} (at offset ${at})`);
  }
}
