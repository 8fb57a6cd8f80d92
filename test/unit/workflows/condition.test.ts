import { describe, expect, it } from 'vitest';
import {
  approveCondition,
  ConditionError,
  evaluate,
  parseCondition,
  rejectCondition,
  testsStepStatus,
  type Condition,
  type ConditionScope,
} from '../../../server/domains/workflows/graph/condition.js';
import { patternProblem, REGEX_INPUT_CAP } from '../../../server/domains/workflows/graph/regex-safety.js';

const scope = (output: Record<string, unknown> = {}, step: Record<string, unknown> = {}, input: Record<string, unknown> = {}): ConditionScope => ({
  output,
  step,
  execution: { input, executionId: 'exec-1' },
});

/** Parses `ast` (as the JSON text an edge carries) and evaluates it. */
const run = (ast: unknown, s: ConditionScope = scope()) => evaluate(parseCondition(JSON.stringify(ast)), s);
const v = (path: string) => ({ var: path });
const op = (name: string, ...args: unknown[]) => ({ op: name, args });

const refused = (text: string, message: string | RegExp) => {
  expect(() => parseCondition(text)).toThrow(ConditionError);
  expect(() => parseCondition(text)).toThrow(message);
};

describe('evaluate: the operators', () => {
  const output = { decision: 'approve', score: 0.9, count: 3, flag: true, title: 'Urgent: fix', tags: ['a', 'b'], nested: { x: [1, { y: 2 }] }, none: null, empty: '', list: [] };

  it('eq and ne: strict on scalars, by content on arrays and objects, a missing value equal to null', () => {
    expect(run(op('eq', v('output.decision'), 'approve'), scope(output))).toBe(true);
    expect(run(op('eq', v('output.count'), 3), scope(output))).toBe(true);
    expect(run(op('eq', v('output.count'), '3'), scope(output))).toBe(false);
    expect(run(op('eq', v('output.flag'), true), scope(output))).toBe(true);
    expect(run(op('eq', v('output.none'), null), scope(output))).toBe(true);
    expect(run(op('eq', v('output.missing'), null), scope(output))).toBe(true);
    expect(run(op('eq', v('output.tags'), v('output.tags')), scope(output))).toBe(true);
    expect(run(op('eq', v('output.nested'), v('step.copy')), scope(output, { copy: { x: [1, { y: 2 }] } }))).toBe(true);
    expect(run(op('eq', v('output.nested'), v('step.copy')), scope(output, { copy: { x: [1, { y: 3 }] } }))).toBe(false);
    expect(run(op('ne', v('output.decision'), 'reject'), scope(output))).toBe(true);
    expect(run(op('ne', v('output.decision'), 'approve'), scope(output))).toBe(false);
  });

  it('gt, gte, lt, lte: numbers with numbers, strings with strings, anything else false', () => {
    const s = scope(output);
    expect(run(op('gt', v('output.score'), 0.8), s)).toBe(true);
    expect(run(op('gt', v('output.score'), 0.9), s)).toBe(false);
    expect(run(op('gte', v('output.score'), 0.9), s)).toBe(true);
    expect(run(op('lt', v('output.count'), 4), s)).toBe(true);
    expect(run(op('lte', v('output.count'), 3), s)).toBe(true);
    expect(run(op('lte', v('output.count'), 2), s)).toBe(false);
    expect(run(op('lt', '2026-01-01', '2026-02-01'), s)).toBe(true);
    expect(run(op('gt', 'b', 'a'), s)).toBe(true);
    // Type mismatches compare false, whichever way round.
    for (const name of ['gt', 'gte', 'lt', 'lte']) {
      expect(run(op(name, '5', 4), s)).toBe(false);
      expect(run(op(name, 4, '5'), s)).toBe(false);
      expect(run(op(name, v('output.missing'), 0), s)).toBe(false);
      expect(run(op(name, null, 0), s)).toBe(false);
      expect(run(op(name, true, false), s)).toBe(false);
      expect(run(op(name, v('output.tags'), 1), s)).toBe(false);
    }
  });

  it('and, or, not: only true counts as true', () => {
    const s = scope(output);
    const yes = op('eq', 1, 1);
    const no = op('eq', 1, 2);
    expect(run(op('and', yes, yes), s)).toBe(true);
    expect(run(op('and', yes, no), s)).toBe(false);
    expect(run(op('and', v('output.flag')), s)).toBe(true);
    expect(run(op('and', v('output.title')), s)).toBe(false);
    expect(run(op('or', no, yes), s)).toBe(true);
    expect(run(op('or', no, no), s)).toBe(false);
    expect(run(op('or', 1, 'yes', v('output.tags')), s)).toBe(false);
    expect(run(op('not', no), s)).toBe(true);
    expect(run(op('not', yes), s)).toBe(false);
    expect(run(op('not', v('output.missing')), s)).toBe(true);
    expect(run(op('not', op('and', yes, op('or', no, yes))), s)).toBe(false);
  });

  it('regex: on strings only, on the first 10,000 characters', () => {
    const s = scope(output);
    expect(run(op('regex', v('output.title'), '^Urgent'), s)).toBe(true);
    expect(run(op('regex', v('output.title'), '^urgent'), s)).toBe(false);
    expect(run(op('regex', v('output.title'), 'fix$'), s)).toBe(true);
    expect(run(op('regex', v('output.count'), '3'), s)).toBe(false);
    expect(run(op('regex', v('output.missing'), '.?'), s)).toBe(false);
    const long = `${'a'.repeat(REGEX_INPUT_CAP)}needle`;
    expect(run(op('regex', v('output.body'), 'needle'), scope({ body: long }))).toBe(false);
    expect(run(op('regex', v('output.body'), 'needle'), scope({ body: long.slice(10) }))).toBe(true);
  });

  it('includes: a substring of a string, or an element of an array', () => {
    const s = scope(output);
    expect(run(op('includes', v('output.title'), 'fix'), s)).toBe(true);
    expect(run(op('includes', v('output.title'), 'nope'), s)).toBe(false);
    expect(run(op('includes', v('output.tags'), 'b'), s)).toBe(true);
    expect(run(op('includes', v('output.tags'), 'c'), s)).toBe(false);
    expect(run(op('includes', v('output.nested.x'), v('step.y')), scope(output, { y: { y: 2 } }))).toBe(true);
    expect(run(op('includes', v('output.title'), 1), s)).toBe(false);
    expect(run(op('includes', v('output.count'), 3), s)).toBe(false);
    expect(run(op('includes', v('output.nested'), 'x'), s)).toBe(false);
  });

  it('startsWith and endsWith: strings only', () => {
    const s = scope(output);
    expect(run(op('startsWith', v('output.title'), 'Urgent'), s)).toBe(true);
    expect(run(op('startsWith', v('output.title'), 'fix'), s)).toBe(false);
    expect(run(op('endsWith', v('output.title'), 'fix'), s)).toBe(true);
    expect(run(op('endsWith', v('output.title'), 'Urgent'), s)).toBe(false);
    expect(run(op('startsWith', v('output.tags'), 'a'), s)).toBe(false);
    expect(run(op('endsWith', v('output.count'), 3), s)).toBe(false);
  });

  it('length: characters of a string, elements of an array, keys of an object; usable in comparisons', () => {
    const s = scope({ ...output, emoji: '👍👍' });
    expect(run(op('eq', op('length', v('output.title')), 11), s)).toBe(true);
    expect(run(op('eq', op('length', v('output.emoji')), 2), s)).toBe(true);
    expect(run(op('eq', op('length', v('output.tags')), 2), s)).toBe(true);
    expect(run(op('eq', op('length', v('output.nested')), 1), s)).toBe(true);
    expect(run(op('gt', op('length', v('output.tags')), 1), s)).toBe(true);
    // Nothing to measure: no number, so every comparison is false.
    expect(run(op('gt', op('length', v('output.count')), -1), s)).toBe(false);
    expect(run(op('lt', op('length', v('output.missing')), 1), s)).toBe(false);
  });

  it('isEmpty: missing, null, empty string, array or object', () => {
    const s = scope({ ...output, obj: {} });
    for (const path of ['output.missing', 'output.none', 'output.empty', 'output.list', 'output.obj']) expect(run(op('isEmpty', v(path)), s)).toBe(true);
    for (const path of ['output.title', 'output.tags', 'output.nested', 'output.count', 'output.flag']) expect(run(op('isEmpty', v(path)), s)).toBe(false);
    expect(run(op('isEmpty', 0), s)).toBe(false);
    expect(run(op('isEmpty', false), s)).toBe(false);
  });

  it('in: the value is one of an array of literals', () => {
    const s = scope(output);
    expect(run(op('in', v('output.decision'), ['approve', 'skip']), s)).toBe(true);
    expect(run(op('in', v('output.decision'), ['reject']), s)).toBe(false);
    expect(run(op('in', v('output.count'), [1, 2, 3]), s)).toBe(true);
    expect(run(op('in', v('output.missing'), [null]), s)).toBe(true);
    expect(run(op('in', v('output.count'), []), s)).toBe(false);
  });

  it('the top-level result counts only when it is true', () => {
    // `and` of a non-boolean, `not` of nothing, a nested value: true is the only yes.
    expect(run(op('and', v('output.yes')), scope({ yes: 'true' }))).toBe(false);
    expect(run(op('or', v('output.yes')), scope({ yes: 1 }))).toBe(false);
    expect(run(op('and', v('output.yes')), scope({ yes: true }))).toBe(true);
  });
});

describe('evaluate: paths', () => {
  it('read output, step, execution and execution.input', () => {
    const s = scope({ a: { b: [10, 20] } }, { status: 'breached', nodeId: 'n' }, { page: { url: 'https://x' } });
    expect(run(op('eq', v('output.a.b.1'), 20), s)).toBe(true);
    expect(run(op('eq', v('step.status'), 'breached'), s)).toBe(true);
    expect(run(op('eq', v('execution.input.page.url'), 'https://x'), s)).toBe(true);
    expect(run(op('eq', v('execution.executionId'), 'exec-1'), s)).toBe(true);
    expect(run(op('isEmpty', v('output.a.b.1.c')), s)).toBe(true);
    expect(run(op('isEmpty', v('output.a.b.x')), s)).toBe(true);
  });

  it('follow own properties only: __proto__, constructor and inherited names are undefined', () => {
    const s = scope({ text: 'abc', list: [1], obj: {} });
    for (const path of [
      'output.__proto__',
      'output.constructor',
      'output.constructor.name',
      'output.toString',
      'output.hasOwnProperty',
      'output.obj.__proto__',
      'output.list.constructor',
      'output.list.map',
      'output.text.length',
      'output.text.0',
      'step.__proto__.polluted',
      'execution.input.constructor.prototype',
    ]) {
      expect(run(op('isEmpty', v(path)), s), path).toBe(true);
      expect(run(op('eq', v(path), null), s), path).toBe(true);
    }
    // A key the data itself has is data, even when it is named __proto__ (JSON.parse makes it an own property).
    const own = scope(JSON.parse('{"__proto__": {"x": 1}, "constructor": "c"}') as Record<string, unknown>);
    expect(run(op('eq', v('output.__proto__.x'), 1), own)).toBe(true);
    expect(run(op('eq', v('output.constructor'), 'c'), own)).toBe(true);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe('parseCondition: what it refuses, and says why', () => {
  it('text that is not JSON, or JSON that is not an operation', () => {
    refused("output.decision == 'approve'", /^not valid JSON/);
    refused('', /^not valid JSON/);
    refused('true', 'a condition is a JSON object');
    refused('[]', 'a condition is a JSON object');
    refused('{"var":"output.x"}', 'a condition is a JSON object');
  });

  it('unknown operators, wrong argument counts, stray keys', () => {
    refused('{"op":"foo","args":[]}', 'unknown operator "foo"');
    refused('{"op":"gt","args":[1,2,3]}', '"gt" takes 2 arguments, got 3');
    refused('{"op":"not","args":[]}', '"not" takes 1 argument, got 0');
    refused('{"op":"and","args":[]}', '"and" takes at least 1 argument, got 0');
    refused('{"op":"eq"}', '"eq" needs "args", an array');
    refused('{"op":"eq","args":{}}', '"eq" needs "args", an array');
    refused('{"op":"eq","args":[1,1],"extra":1}', 'unexpected key "extra"');
    refused('{"op":42,"args":[]}', '"op" must be an operator name');
    refused('{"op":"and","args":[{"op":"eq","args":[1]}]}', '"eq" takes 2 arguments, got 1 (at args[0])');
    refused('{"op":"and","args":[{"op":"eq","args":[1,{"op":"nope","args":[]}]}]}', /^unknown operator "nope"; the operators are eq, ne, .* \(at args\[0\]\.args\[1\]\)$/);
  });

  it('arguments: variables under output, step or execution; literals; arrays only for "in"', () => {
    refused('{"op":"eq","args":[{"var":"input.x"},1]}', 'variable "input.x" must start with output, step or execution');
    refused('{"op":"eq","args":[{"var":"triggerContext.x"},1]}', 'must start with output, step or execution');
    refused('{"op":"eq","args":[{"var":"output..x"},1]}', 'variable "output..x" has an empty segment');
    refused('{"op":"eq","args":[{"var":""},1]}', '"var" must be a dot path');
    refused('{"op":"eq","args":[{"var":3},1]}', '"var" must be a dot path');
    refused('{"op":"eq","args":[{"var":"output.x","op":"eq"},1]}', 'unexpected key "var" in an operation');
    refused('{"op":"eq","args":[{"var":"output.x","x":1},1]}', 'unexpected key "x" in a variable');
    refused('{"op":"eq","args":[{"value":1},1]}', 'an argument is an operation');
    refused('{"op":"eq","args":[[1],1]}', 'an array is only allowed as the second argument of "in"');
    refused('{"op":"in","args":[1,2]}', 'the second argument of "in" must be an array of literals');
    refused('{"op":"in","args":[1,[{"var":"output.x"}]]}', 'the array of "in" holds only strings, numbers, booleans and null');
    refused('{"op":"length","args":[{"var":"output.x"}]}', 'gives a number ("length")');
  });

  it('depth and size limits', () => {
    let deep: unknown = op('eq', 1, 1);
    for (let i = 0; i < 31; i += 1) deep = op('not', deep);
    expect(() => parseCondition(JSON.stringify(deep))).not.toThrow();
    refused(JSON.stringify(op('not', deep)), 'nested more than 32 operations deep');
    const wide = op('and', ...Array.from({ length: 66 }, () => op('eq', 1, 1)));
    expect(() => parseCondition(JSON.stringify(wide))).not.toThrow();
    refused(JSON.stringify(op('and', ...Array.from({ length: 67 }, () => op('eq', 1, 1)))), 'more than 200 operations, variables and literals');
    refused(JSON.stringify(op('in', 1, Array.from({ length: 200 }, (_, i) => i))), 'more than 200');
  });

  it('regex patterns: a string literal, 200 characters at most, a valid JavaScript regular expression', () => {
    refused('{"op":"regex","args":[{"var":"output.x"},{"var":"output.y"}]}', 'the pattern of "regex" (its second argument) must be a string literal');
    refused(JSON.stringify(op('regex', v('output.x'), 'a'.repeat(201))), 'regex pattern longer than 200 characters');
    expect(() => parseCondition(JSON.stringify(op('regex', v('output.x'), 'a'.repeat(200))))).not.toThrow();
    refused(JSON.stringify(op('regex', v('output.x'), '(')), /regex pattern is not a valid regular expression \(.*\) \(at args\[1\]\)/);
    refused(JSON.stringify(op('regex', v('output.x'), 'a{2,1}')), 'not a valid regular expression');
  });

  it('regex patterns that can backtrack catastrophically', () => {
    for (const pattern of ['(a+)+', '(a*)*', '(a|aa)+', '(a|a)*$', '^(\\w+\\s?)*$', '(.*a){3}', '((ab)*c)+', '(?:x+y)+', '(a?){25}']) {
      refused(JSON.stringify(op('regex', v('output.x'), pattern)), 'a repeated group may not contain');
    }
    refused(JSON.stringify(op('regex', v('output.x'), '(a)\\1')), 'backreferences are not allowed');
    refused(JSON.stringify(op('regex', v('output.x'), '(?<n>a)\\k<n>')), 'backreferences are not allowed');
    for (const pattern of ['.*.*x', '^.*a.*a.*x', '[a-z]+\\d+', '^\\w+@\\w+\\.\\w+$', '.{0,5000}.{0,5000}x']) {
      refused(JSON.stringify(op('regex', v('output.x'), pattern)), 'too many repetitions');
    }
    expect(patternProblem('(?<unclosed')).toBeUndefined(); // not a RegExp at all (parseCondition refuses it first), and no endless scan
    for (const pattern of ['^urgent', 'urgent.*now', '^\\w+@\\w+$', '\\d{3}-\\d{4}', '(foo|bar)', '^(foo|bar)$', '(ab)+', '[(+*]', 'a{2}', '^(?:ab)?c+', 'x\\{1,2\\}', '^a|b$']) {
      expect(patternProblem(pattern), pattern).toBeUndefined();
      expect(() => parseCondition(JSON.stringify(op('regex', v('output.x'), pattern)))).not.toThrow();
    }
  });

  it('the heaviest accepted pattern stays quick on the longest input it gets', () => {
    const started = performance.now();
    expect(run(op('regex', v('output.x'), '.*x'), scope({ x: 'a'.repeat(50_000) }))).toBe(false);
    expect(run(op('regex', v('output.x'), '^\\w+@\\w+$'), scope({ x: 'a'.repeat(50_000) }))).toBe(false);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe('approve and reject predicates', () => {
  it('are the ASTs the hosted service compiles approve and reject to', () => {
    expect(approveCondition).toEqual({ op: 'eq', args: [{ var: 'output.decision' }, 'approve'] });
    expect(rejectCondition).toEqual({ op: 'eq', args: [{ var: 'output.decision' }, 'reject'] });
    expect(evaluate(approveCondition, scope({ decision: 'approve' }))).toBe(true);
    expect(evaluate(approveCondition, scope({ decision: 'reject' }))).toBe(false);
    expect(evaluate(rejectCondition, scope({ decision: 'reject' }))).toBe(true);
    expect(evaluate(rejectCondition, scope({}))).toBe(false);
    expect(Object.isFrozen(approveCondition) && Object.isFrozen(approveCondition.args)).toBe(true);
  });
});

describe('evaluate on an AST it did not parse (read back from storage)', () => {
  it('compiles a regex on first use, and is false rather than throwing on what parsing would refuse', () => {
    const stored = JSON.parse(JSON.stringify(parseCondition(JSON.stringify(op('regex', v('output.t'), '^ab'))))) as Condition;
    expect(evaluate(stored, scope({ t: 'abc' }))).toBe(true);
    expect(evaluate({ op: 'regex', args: [{ var: 'output.t' }, '(a+)+$'] }, scope({ t: 'aaaa' }))).toBe(false);
    expect(evaluate({ op: 'regex', args: [{ var: 'output.t' }, '('] }, scope({ t: 'aaaa' }))).toBe(false);
    expect(evaluate({ op: 'nope', args: [] } as unknown as Condition, scope())).toBe(false);
    expect(evaluate({ op: 'eq' } as unknown as Condition, scope())).toBe(false);
    expect(evaluate({ op: 'eq', args: [null] } as unknown as Condition, scope())).toBe(false);
    const cyclic: Condition = { op: 'not', args: [] };
    cyclic.args.push(cyclic);
    expect(evaluate(cyclic, scope())).toBe(false);
  });
});

describe('testsStepStatus', () => {
  it('sees a comparison of step.status with the status, at any depth', () => {
    const breach = parseCondition(JSON.stringify(op('or', op('eq', v('output.decision'), 'reject'), op('eq', v('step.status'), 'breached'))));
    expect(testsStepStatus(breach, 'breached')).toBe(true);
    expect(testsStepStatus(parseCondition(JSON.stringify(op('in', v('step.status'), ['failed', 'breached']))), 'breached')).toBe(true);
    expect(testsStepStatus(parseCondition(JSON.stringify(op('eq', v('output.status'), 'breached'))), 'breached')).toBe(false);
    expect(testsStepStatus(parseCondition(JSON.stringify(op('eq', v('step.status'), 'failed'))), 'breached')).toBe(false);
  });
});
