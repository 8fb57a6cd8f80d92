import * as Y from 'yjs';
import { defineOwn } from './json.js';
import { type DiffBudget, diffSequences } from './sequence-diff.js';
import { type TextRun, readRuns, syncText } from './text-diff.js';
import { type XmlNode, escapeText, openTag } from './xml.js';

/**
 * Writing XML into a Y.XmlFragment.
 *
 * Rich-text editors bound through y-prosemirror (Tiptap) keep marks such as
 * bold or a link not as elements but as formatting attributes on Y.XmlText;
 * Yjs prints them as tags (`Hello <bold>world</bold>`), and so does
 * readXml. When writing, an element whose name the fragment already uses as
 * a mark, and which holds only text and other marks, therefore becomes
 * formatted text again. Any other element becomes a Y.XmlElement. Without
 * this, writing back what was read would turn marks into elements that the
 * editor's schema does not know.
 */

type Plan = ElementPlan | TextPlan;
interface ElementPlan {
  kind: 'element';
  name: string;
  attributes: Map<string, string>;
  children: Plan[];
  key: string;
}
interface TextPlan {
  kind: 'text';
  runs: TextRun[];
  key: string;
}

/** How an attribute value prints; null for one that counts as absent. */
function attributeText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (value instanceof Y.AbstractType) return JSON.stringify(value.toJSON());
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function ownAttributes(record: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (typeof record !== 'object' || record === null) return out;
  for (const key of Object.keys(record)) {
    const text = attributeText((record as Record<string, unknown>)[key]);
    if (text !== null) out.set(key, text);
  }
  return out;
}

/** The tags a piece of formatted text prints with, outermost first (sorted by name, as Yjs does). */
function markTags(attributes: Record<string, unknown> | undefined): { open: string; close: string } {
  if (!attributes) return { open: '', close: '' };
  let open = '';
  let close = '';
  for (const name of Object.keys(attributes).sort()) {
    const value = attributes[name];
    if (value === null || value === undefined) continue;
    open += openTag(name, ownAttributes(value));
    close = `</${name}>${close}`;
  }
  return { open, close };
}

const markFormatKey = (attributes: Record<string, unknown> | undefined) => markTags(attributes).open;

function runsKey(runs: readonly TextRun[]): string {
  return runs
    .map((run) => {
      const tags = markTags(run.attributes);
      return `${tags.open}${escapeText(run.text)}${tags.close}`;
    })
    .join('');
}

/** Prints Yjs XML nodes in the canonical form of xml.ts; remembers what it printed. */
class Printer {
  private readonly printed = new Map<unknown, string>();

  print(node: unknown): string {
    let out = this.printed.get(node);
    if (out === undefined) {
      out = this.printUncached(node);
      this.printed.set(node, out);
    }
    return out;
  }

  children(parent: Y.XmlFragment): string {
    return parent
      .toArray()
      .map((child) => this.print(child))
      .join('');
  }

  private printUncached(node: unknown): string {
    if (node instanceof Y.XmlElement) {
      return `${openTag(node.nodeName, ownAttributes(node.getAttributes()))}${this.children(node)}</${node.nodeName}>`;
    }
    if (node instanceof Y.XmlText) return runsKey(readRuns(node, markFormatKey));
    // Y.XmlHook and anything else with no XML form prints as nothing and is left alone.
    return '';
  }
}

export function readXml(fragment: Y.XmlFragment): string {
  return new Printer().children(fragment);
}

/** The names the fragment uses as marks (formatting attributes of its text). */
function markNames(fragment: Y.XmlFragment): Set<string> {
  const out = new Set<string>();
  const visit = (parent: Y.XmlFragment) => {
    for (const child of parent.toArray()) {
      if (child instanceof Y.XmlElement) visit(child);
      else if (child instanceof Y.XmlText) {
        for (const op of child.toDelta() as { attributes?: Record<string, unknown> }[]) {
          for (const name of Object.keys(op.attributes ?? {})) out.add(name);
        }
      }
    }
  };
  visit(fragment);
  return out;
}

function plan(nodes: readonly XmlNode[], marks: ReadonlySet<string>): Plan[] {
  const out: Plan[] = [];
  let runs: TextRun[] = [];
  const addRun = (text: string, attributes: Record<string, unknown> | undefined) => {
    const format = markFormatKey(attributes);
    const last = runs[runs.length - 1];
    if (last && last.format === format) last.text += text;
    else runs.push({ text, attributes: attributes ?? {}, format });
  };
  const flatten = (node: XmlNode, attributes: Record<string, unknown> | undefined) => {
    if (node.kind === 'text') {
      addRun(node.text, attributes);
      return;
    }
    const inner: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(attributes ?? {})) defineOwn(inner, name, value);
    const markValue: Record<string, unknown> = {};
    for (const [name, value] of node.attributes) defineOwn(markValue, name, value);
    defineOwn(inner, node.name, markValue);
    for (const child of node.children) flatten(child, inner);
  };
  const flush = () => {
    if (runs.length > 0) out.push({ kind: 'text', runs, key: runsKey(runs) });
    runs = [];
  };
  for (const node of nodes) {
    if (node.kind === 'text' || isMarkOnly(node, marks)) {
      flatten(node, undefined);
      continue;
    }
    flush();
    const children = plan(node.children, marks);
    const key = `${openTag(node.name, node.attributes)}${children.map((child) => child.key).join('')}</${node.name}>`;
    out.push({ kind: 'element', name: node.name, attributes: node.attributes, children, key });
  }
  flush();
  return out;
}

function isMarkOnly(node: XmlNode, marks: ReadonlySet<string>): boolean {
  return node.kind === 'text' || (marks.has(node.name) && node.children.every((child) => isMarkOnly(child, marks)));
}

/** Makes `fragment` print as `nodes`, touching only the parts that differ. Run inside a transaction. */
export function syncXml(fragment: Y.XmlFragment, nodes: readonly XmlNode[], budget: DiffBudget): boolean {
  const target = plan(nodes, markNames(fragment));
  return new XmlSync(budget).children(fragment, target);
}

class XmlSync {
  private readonly printer = new Printer();
  private readonly ids = new Map<string, number>();

  constructor(private readonly budget: DiffBudget) {}

  private id(key: string): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(key, id);
    }
    return id;
  }

  children(parent: Y.XmlFragment, target: Plan[]): boolean {
    // Children that print as nothing (empty text, hooks) take no part in the
    // comparison; they go only when a replaced range spans them.
    const old = parent
      .toArray()
      .map((node, index) => ({ node, index, key: this.printer.print(node) }))
      .filter((child) => child.key !== '');
    const hunks = diffSequences(
      old.map((child) => this.id(child.key)),
      target.map((child) => this.id(child.key)),
      this.budget,
    );
    // Last hunk first: indices before it stay valid.
    for (let h = hunks.length - 1; h >= 0; h--) {
      const hunk = hunks[h]!;
      const before = old.slice(hunk.aStart, hunk.aEnd);
      const after = target.slice(hunk.bStart, hunk.bEnd);
      // Changed nodes that stay the same kind of node are edited in place, so
      // concurrent edits inside them survive; the rest is replaced.
      const pairs = Math.min(before.length, after.length);
      let front = 0;
      while (front < pairs && compatible(before[front]!.node, after[front]!)) front++;
      let back = 0;
      while (back < pairs - front && compatible(before[before.length - 1 - back]!.node, after[after.length - 1 - back]!)) back++;
      const removed = before.slice(front, before.length - back);
      const added = after.slice(front, after.length - back);
      const at = removed[0]?.index ?? old[hunk.aStart + front]?.index ?? parent.length;
      if (removed.length > 0) parent.delete(at, removed[removed.length - 1]!.index + 1 - at);
      if (added.length > 0) this.insert(parent, at, added);
      for (let i = 0; i < front; i++) this.update(before[i]!.node, after[i]!);
      for (let i = 1; i <= back; i++) this.update(before[before.length - i]!.node, after[after.length - i]!);
    }
    return hunks.length > 0;
  }

  private update(node: unknown, target: Plan): void {
    if (target.kind === 'text') {
      syncText(node as Y.XmlText, target.runs, this.budget, markFormatKey);
      return;
    }
    const element = node as Y.XmlElement;
    const current = element.getAttributes() as Record<string, unknown>;
    for (const [name, value] of target.attributes) {
      const now = Object.hasOwn(current, name) ? current[name] : undefined;
      if (attributeText(now) !== value) element.setAttribute(name, value);
    }
    for (const name of Object.keys(current)) {
      if (!target.attributes.has(name) && attributeText(current[name]) !== null) element.removeAttribute(name);
    }
    this.children(element, target.children);
  }

  private insert(parent: Y.XmlFragment, at: number, plans: Plan[]): void {
    if (plans.length === 0) return;
    const nodes = plans.map((item) => (item.kind === 'element' ? new Y.XmlElement(item.name) : new Y.XmlText()));
    parent.insert(at, nodes);
    // Filled once in the document, where Yjs applies formatting right away.
    nodes.forEach((node, i) => {
      const item = plans[i]!;
      if (item.kind === 'text') {
        let offset = 0;
        for (const run of item.runs) {
          (node as Y.XmlText).insert(offset, run.text, { ...run.attributes });
          offset += run.text.length;
        }
        return;
      }
      const element = node as Y.XmlElement;
      for (const [name, value] of item.attributes) element.setAttribute(name, value);
      this.insert(element, 0, item.children);
    });
  }
}

function compatible(node: unknown, target: Plan): boolean {
  if (target.kind === 'text') return node instanceof Y.XmlText;
  return node instanceof Y.XmlElement && node.nodeName === target.name;
}
