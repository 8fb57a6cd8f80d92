import { lookupPath, splitPath } from './path.js';
import { MAX_PATTERN_CHARS, patternProblem, REGEX_INPUT_CAP } from './regex-safety.js';

/**
 * The `when` language of `on: "custom"` edges: a JSON AST, parsed once when
 * the definition is written and walked when a step ends. Nothing in it is
 * ever run as code. docs/workflows.md describes it for authors.
 */

export const CONDITION_OPS = [
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'and',
  'or',
  'not',
  'regex',
  'includes',
  'startsWith',
  'endsWith',
  'length',
  'isEmpty',
  'in',
] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];
export type ConditionLiteral = string | number | boolean | null;
export type ConditionVar = { var: string };
/** An argument: another operation, a variable, a literal, or (second argument of `in` only) an array of literals. */
export type ConditionArg = Condition | ConditionVar | ConditionLiteral | ConditionLiteral[];
/** A type alias (not an interface) so that it is a JSON object (`Record<string, unknown>`) for the compiled view. */
export type Condition = { op: ConditionOp; args: ConditionArg[] };

export const MAX_CONDITION_DEPTH = 32;
export const MAX_CONDITION_NODES = 200;
export const VAR_ROOTS = ['output', 'step', 'execution'] as const;
const MAX_VAR_CHARS = 500;

/** What a condition reads: the source step's output and metadata, and the execution (`execution.input` is its triggerContext). */
export interface ConditionScope {
  output: Record<string, unknown>;
  step: Record<string, unknown>;
  execution: { input: Record<string, unknown>; [key: string]: unknown };
}

/** A `when` that is not valid JSON or not a valid condition; the message says what and where. */
export class ConditionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConditionError';
  }
}

const ARITY: Record<ConditionOp, { min: number; max: number }> = {
  eq: { min: 2, max: 2 },
  ne: { min: 2, max: 2 },
  gt: { min: 2, max: 2 },
  gte: { min: 2, max: 2 },
  lt: { min: 2, max: 2 },
  lte: { min: 2, max: 2 },
  and: { min: 1, max: Infinity },
  or: { min: 1, max: Infinity },
  not: { min: 1, max: 1 },
  regex: { min: 2, max: 2 },
  includes: { min: 2, max: 2 },
  startsWith: { min: 2, max: 2 },
  endsWith: { min: 2, max: 2 },
  length: { min: 1, max: 1 },
  isEmpty: { min: 1, max: 1 },
  in: { min: 2, max: 2 },
};

/**
 * The compiled regex of each `regex` node: kept beside the AST, not in it,
 * so the AST stays the plain JSON the compiled view shows.
 */
const compiledPatterns = new WeakMap<Condition, RegExp>();

const isOp = (op: unknown): op is ConditionOp => typeof op === 'string' && (CONDITION_OPS as readonly string[]).includes(op);
const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isLiteral = (value: unknown): value is ConditionLiteral => value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
const s = (n: number) => (n === 1 ? '' : 's');

function arityText(op: ConditionOp): string {
  const { min, max } = ARITY[op];
  if (min === max) return `"${op}" takes ${min} argument${s(min)}`;
  return `"${op}" takes at least ${min} argument${s(min)}`;
}

/** Parses and checks a `when` string; throws ConditionError naming what is wrong. */
export function parseCondition(text: string): Condition {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConditionError(`not valid JSON (${(error as Error).message}); a condition is a JSON object such as {"op":"eq","args":[{"var":"output.decision"},"approve"]}`);
  }
  const counter = { nodes: 0 };
  if (!isPlainObject(json) || !Object.hasOwn(json, 'op')) throw new ConditionError('a condition is a JSON object {"op": …, "args": […]}');
  const condition = parseOperation(json, 1, '', counter);
  if (condition.op === 'length') throw new ConditionError('the condition gives a number ("length"), not true or false; compare it, e.g. {"op":"gt","args":[{"op":"length","args":[…]},0]}');
  return condition;
}

function parseOperation(json: Record<string, unknown>, depth: number, where: string, counter: { nodes: number }): Condition {
  const at = where ? ` (at ${where})` : '';
  if (depth > MAX_CONDITION_DEPTH) throw new ConditionError(`nested more than ${MAX_CONDITION_DEPTH} operations deep${at}`);
  count(counter, at);
  for (const key of Object.keys(json)) {
    if (key !== 'op' && key !== 'args') throw new ConditionError(`unexpected key "${key}" in an operation, which has only "op" and "args"${at}`);
  }
  const { op, args } = json;
  if (!isOp(op)) {
    throw new ConditionError(`${typeof op === 'string' ? `unknown operator "${op}"` : '"op" must be an operator name'}; the operators are ${CONDITION_OPS.join(', ')}${at}`);
  }
  if (!Array.isArray(args)) throw new ConditionError(`"${op}" needs "args", an array${at}`);
  const { min, max } = ARITY[op];
  if (args.length < min || args.length > max) throw new ConditionError(`${arityText(op)}, got ${args.length}${at}`);

  const parsed: ConditionArg[] = args.map((arg: unknown, index) => {
    const argWhere = `${where ? `${where}.` : ''}args[${index}]`;
    const argAt = ` (at ${argWhere})`;
    if (op === 'regex' && index === 1) {
      if (typeof arg !== 'string') throw new ConditionError(`the pattern of "regex" (its second argument) must be a string literal${argAt}`);
      count(counter, argAt);
      return arg;
    }
    if (op === 'in' && index === 1) {
      if (!Array.isArray(arg)) throw new ConditionError(`the second argument of "in" must be an array of literals${argAt}`);
      count(counter, argAt);
      return arg.map((item: unknown, itemIndex) => {
        if (!isLiteral(item)) throw new ConditionError(`the array of "in" holds only strings, numbers, booleans and null (at ${argWhere}[${itemIndex}])`);
        count(counter, argAt);
        return item;
      });
    }
    return parseArgument(arg, depth, argWhere, counter);
  });

  const condition: Condition = { op, args: parsed };
  if (op === 'regex') compiledPatterns.set(condition, compilePattern(parsed[1] as string, ` (at ${where ? `${where}.` : ''}args[1])`));
  return condition;
}

function parseArgument(arg: unknown, depth: number, where: string, counter: { nodes: number }): ConditionArg {
  const at = ` (at ${where})`;
  if (isLiteral(arg)) {
    count(counter, at);
    return arg;
  }
  if (Array.isArray(arg)) throw new ConditionError(`an array is only allowed as the second argument of "in"${at}`);
  if (isPlainObject(arg)) {
    if (Object.hasOwn(arg, 'op')) return parseOperation(arg, depth + 1, where, counter);
    if (Object.hasOwn(arg, 'var')) {
      count(counter, at);
      for (const key of Object.keys(arg)) {
        if (key !== 'var') throw new ConditionError(`unexpected key "${key}" in a variable, which has only "var"${at}`);
      }
      return { var: checkVar(arg.var, at) };
    }
  }
  throw new ConditionError(`an argument is an operation {"op", "args"}, a variable {"var": "output.x"}, a string, a number, a boolean or null${at}`);
}

function count(counter: { nodes: number }, at: string): void {
  counter.nodes += 1;
  if (counter.nodes > MAX_CONDITION_NODES) throw new ConditionError(`more than ${MAX_CONDITION_NODES} operations, variables and literals${at}`);
}

function checkVar(path: unknown, at: string): string {
  if (typeof path !== 'string' || path.length === 0) throw new ConditionError(`"var" must be a dot path such as "output.score"${at}`);
  if (path.length > MAX_VAR_CHARS) throw new ConditionError(`variable longer than ${MAX_VAR_CHARS} characters${at}`);
  const segments = splitPath(path);
  if (!segments) throw new ConditionError(`variable "${path}" has an empty segment${at}`);
  if (!(VAR_ROOTS as readonly string[]).includes(segments[0]!)) {
    throw new ConditionError(`variable "${path}" must start with output, step or execution (execution.input is the trigger context)${at}`);
  }
  return path;
}

function compilePattern(pattern: string, at: string): RegExp {
  if (pattern.length > MAX_PATTERN_CHARS) throw new ConditionError(`regex pattern longer than ${MAX_PATTERN_CHARS} characters${at}`);
  let compiled: RegExp;
  try {
    compiled = new RegExp(pattern);
  } catch (error) {
    throw new ConditionError(`regex pattern is not a valid regular expression (${(error as Error).message})${at}`);
  }
  const problem = patternProblem(pattern);
  if (problem) throw new ConditionError(`regex pattern refused: ${problem}${at}`);
  return compiled;
}

const frozen = (condition: Condition): Condition => {
  for (const arg of condition.args) if (isPlainObject(arg)) Object.freeze(arg);
  Object.freeze(condition.args);
  return Object.freeze(condition);
};
/** The predicate `on: "approve"` compiles to, as the hosted service shows it (frozen: every approve edge shares it). */
export const approveCondition: Condition = frozen({ op: 'eq', args: [{ var: 'output.decision' }, 'approve'] });
/** The predicate `on: "reject"` compiles to. */
export const rejectCondition: Condition = frozen({ op: 'eq', args: [{ var: 'output.decision' }, 'reject'] });

/**
 * True only when the condition yields `true`. Never throws: a missing
 * path is undefined, a type mismatch is false, and an AST this module did
 * not parse (one read back from storage) is walked with the same checks.
 */
export function evaluate(condition: Condition, scope: ConditionScope): boolean {
  try {
    return evaluateOperation(condition, scope) === true;
  } catch {
    // Only a hand-built AST that parseCondition would refuse (a cycle, a bad pattern) gets here.
    return false;
  }
}

function evaluateArgument(arg: ConditionArg, scope: ConditionScope): unknown {
  if (Array.isArray(arg) || !isPlainObject(arg)) return arg;
  if (Object.hasOwn(arg, 'op')) return evaluateOperation(arg as Condition, scope);
  const name = (arg as Partial<ConditionVar>).var;
  const path = typeof name === 'string' ? splitPath(name) : undefined;
  return path ? lookupPath(scope, path) : undefined;
}

function evaluateOperation(node: Condition, scope: ConditionScope): unknown {
  if (!isOp(node.op) || !Array.isArray(node.args)) return undefined;
  const args: readonly ConditionArg[] = node.args;
  if (args.length < ARITY[node.op].min || args.length > ARITY[node.op].max) return undefined;
  const value = (index: number) => (index < args.length ? evaluateArgument(args[index]!, scope) : undefined);
  switch (node.op) {
    case 'eq':
      return jsonEqual(value(0), value(1));
    case 'ne':
      return !jsonEqual(value(0), value(1));
    case 'gt':
      return compare(value(0), value(1), (order) => order > 0);
    case 'gte':
      return compare(value(0), value(1), (order) => order >= 0);
    case 'lt':
      return compare(value(0), value(1), (order) => order < 0);
    case 'lte':
      return compare(value(0), value(1), (order) => order <= 0);
    case 'and':
      return args.length > 0 && args.every((_, index) => value(index) === true);
    case 'or':
      return args.some((_, index) => value(index) === true);
    case 'not':
      return value(0) !== true;
    case 'regex': {
      const text = value(0);
      const pattern = patternOf(node);
      return typeof text === 'string' && pattern !== undefined && pattern.test(text.slice(0, REGEX_INPUT_CAP));
    }
    case 'includes': {
      const [haystack, needle] = [value(0), value(1)];
      if (typeof haystack === 'string') return typeof needle === 'string' && haystack.includes(needle);
      return Array.isArray(haystack) && haystack.some((item) => jsonEqual(item, needle));
    }
    case 'startsWith': {
      const [text, prefix] = [value(0), value(1)];
      return typeof text === 'string' && typeof prefix === 'string' && text.startsWith(prefix);
    }
    case 'endsWith': {
      const [text, suffix] = [value(0), value(1)];
      return typeof text === 'string' && typeof suffix === 'string' && text.endsWith(suffix);
    }
    case 'length': {
      const subject = value(0);
      if (typeof subject === 'string') return codePoints(subject);
      if (Array.isArray(subject)) return subject.length;
      return isPlainObject(subject) ? Object.keys(subject).length : undefined;
    }
    case 'isEmpty': {
      const subject = value(0);
      if (subject === undefined || subject === null || subject === '') return true;
      if (Array.isArray(subject)) return subject.length === 0;
      return isPlainObject(subject) && Object.keys(subject).length === 0;
    }
    case 'in': {
      const [needle, list] = [value(0), value(1)];
      return Array.isArray(list) && list.some((item) => jsonEqual(item, needle));
    }
    default:
      return undefined;
  }
}

function patternOf(node: Condition): RegExp | undefined {
  const known = compiledPatterns.get(node);
  if (known) return known;
  const pattern = node.args[1];
  if (typeof pattern !== 'string') return undefined;
  // An AST read back from storage: the same checks as when it was written.
  const compiled = compilePattern(pattern, '');
  compiledPatterns.set(node, compiled);
  return compiled;
}

function compare(left: unknown, right: unknown, test: (order: number) => boolean): boolean {
  if (typeof left === 'number' && typeof right === 'number') return !Number.isNaN(left) && !Number.isNaN(right) && test(left === right ? 0 : left < right ? -1 : 1);
  if (typeof left === 'string' && typeof right === 'string') return test(left === right ? 0 : left < right ? -1 : 1);
  return false;
}

function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

const MAX_EQUAL_DEPTH = 64;

/**
 * Equality of JSON values: a missing value equals null (JSON has no
 * undefined, so a value stored and read back would otherwise compare
 * differently), arrays and objects by content.
 */
function jsonEqual(left: unknown, right: unknown, depth = 0): boolean {
  const a = left === undefined ? null : left;
  const b = right === undefined ? null : right;
  if (a === b) return true;
  if (depth >= MAX_EQUAL_DEPTH || typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, index) => jsonEqual(item, b[index], depth + 1));
  }
  const aKeys = Object.keys(a);
  const bRecord = b as Record<string, unknown>;
  return (
    aKeys.length === Object.keys(b).length &&
    aKeys.every((key) => Object.hasOwn(b, key) && jsonEqual((a as Record<string, unknown>)[key], bRecord[key], depth + 1))
  );
}

/**
 * Whether the condition compares `step.status` with `status` somewhere
 * (`eq`, `ne`, `in`, …: any operation with both as arguments). What a
 * `missing-breach-edge` check needs to see that a custom edge routes on a
 * breach; it does not prove the edge fires then.
 */
export function testsStepStatus(condition: Condition, status: string): boolean {
  const mentions = (arg: ConditionArg) => arg === status || (Array.isArray(arg) && arg.includes(status));
  const readsStatus = (arg: ConditionArg) => isPlainObject(arg) && (arg as Partial<ConditionVar>).var === 'step.status';
  const walk = (node: Condition): boolean =>
    (node.args.some(readsStatus) && node.args.some(mentions)) || node.args.some((arg) => isPlainObject(arg) && Object.hasOwn(arg, 'op') && walk(arg as Condition));
  return walk(condition);
}
