import { describe, expect, it } from 'vitest';
import { MAX_RENDERED_BYTES, renderTemplate } from '../../../server/domains/workflows/graph/template.js';

const roots = {
  input: { decision: 'approve', agentResultsSummary: { summary: 'All good', totalFindings: 0 }, score: 0.5, ok: true, none: null, items: ['a', { b: 2 }] },
  execution: { executionId: 'exec-1', triggerContext: { page: { title: 'Pricing' } } },
  step: { nodeId: 'notify' },
};

describe('renderTemplate', () => {
  it('substitutes dot paths, as in the hosted documentation', () => {
    expect(renderTemplate('Approval {{input.decision}} for {{execution.triggerContext.page.title}}', roots)).toBe('Approval approve for Pricing');
    expect(renderTemplate('Findings: {{input.agentResultsSummary.summary}}', roots)).toBe('Findings: All good');
    expect(renderTemplate('Found {{input.agentResultsSummary.totalFindings}} broken link(s).', roots)).toBe('Found 0 broken link(s).');
    expect(renderTemplate('{{step.nodeId}}/{{execution.executionId}}', roots)).toBe('notify/exec-1');
  });

  it('allows whitespace inside the braces', () => {
    expect(renderTemplate('{{ input.decision }}|{{\tinput.score\n}}|{{input.ok   }}', roots)).toBe('approve|0.5|true');
  });

  it('renders strings as they are, numbers and booleans with String, objects and arrays as JSON, the rest empty', () => {
    expect(renderTemplate('{{input.agentResultsSummary}}', roots)).toBe('{"summary":"All good","totalFindings":0}');
    expect(renderTemplate('{{input.items}}', roots)).toBe('["a",{"b":2}]');
    expect(renderTemplate('{{input.items.1.b}} {{input.items.0}}', roots)).toBe('2 a');
    expect(renderTemplate('[{{input.none}}][{{input.missing}}][{{nowhere.at.all}}][{{input.decision.length}}]', roots)).toBe('[][][][]');
    expect(renderTemplate('{{big}}', { big: 10n })).toBe('10');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(renderTemplate('[{{c}}]', { c: cyclic })).toBe('[]');
  });

  it('follows own properties only', () => {
    for (const path of ['input.constructor', 'input.__proto__', 'input.toString', 'constructor', 'toString', '__proto__', 'input.items.map', 'input.items.constructor.name']) {
      expect(renderTemplate(`[{{${path}}}]`, roots), path).toBe('[]');
    }
    expect(renderTemplate('{{input.__proto__.x}}', { input: JSON.parse('{"__proto__":{"x":"own"}}') as unknown })).toBe('own');
  });

  it('renders each token once: a value containing braces is not read again', () => {
    expect(renderTemplate('{{input.text}}', { input: { text: '{{input.secret}}', secret: 'no' } })).toBe('{{input.secret}}');
  });

  it('leaves text between braces that is not a dot path as written', () => {
    expect(renderTemplate('{{}} {{ }} {{ a b }} {{a..b}} {{.a}} {single} {{{input.decision}}} }}{{', roots)).toBe('{{}} {{ }} {{ a b }} {{a..b}} {{.a}} {single} {approve} }}{{');
    expect(renderTemplate('no tokens at all', roots)).toBe('no tokens at all');
    expect(renderTemplate('', roots)).toBe('');
  });

  it('is quick on a template of unclosed braces', () => {
    const started = performance.now();
    expect(renderTemplate(`{{${' '.repeat(60_000)}`, roots)).toHaveLength(60_002);
    expect(renderTemplate('{{'.repeat(30_000), roots)).toHaveLength(60_000);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('caps the output at 64 KB of UTF-8, without splitting a character', () => {
    expect(MAX_RENDERED_BYTES).toBe(65_536);
    const big = 'x'.repeat(40_000);
    const out = renderTemplate('{{a}}{{a}}{{a}}tail', { a: big });
    expect(out).toHaveLength(65_536);
    expect(out).not.toContain('tail');
    expect(renderTemplate('ab{{e}}', { e: '€€' }, { maxBytes: 7 })).toBe('ab€');
    expect(renderTemplate('{{e}}', { e: '👍👍' }, { maxBytes: 7 })).toBe('👍');
    expect(renderTemplate('€€€', {}, { maxBytes: 5 })).toBe('€');
    expect(renderTemplate('short {{a}}', { a: 'x' }, { maxBytes: 7 })).toBe('short x');
    // Many large values: rendering stops at the cap instead of building all of them.
    const many = '{{a}}'.repeat(10_000);
    expect(Buffer.byteLength(renderTemplate(many, { a: big }))).toBe(65_536);
  });
});
