import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import config from '../../vitest.config.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * vitest.config.ts runs the test files of a worker in one module graph
 * (`isolate: false`): what one file leaves in a module or in the process,
 * the next file in that worker sees. That is safe only while:
 *
 * - the server, contract and SDK keep no mutable state at module level (a
 *   test builds its own server; a module-level cache would carry one test's
 *   data into another's server and could make a test pass by accident);
 * - no test file replaces a module (`vi.mock`: it would stay replaced for
 *   the files after it);
 * - a test file that stubs the environment or a global, fakes timers or
 *   spies on an object, undoes it.
 */

/** Module-level `let`/`var` that is allowed, and why it carries nothing between tests. */
const MODULE_STATE: Record<string, string> = {
  'server/domains/agents/run/runner.ts': 'the lazily imported mcp-tools execution and MCP SDK: the same modules for every server',
  'server/domains/ai/providers.ts': 'the lazily imported provider SDKs: the same modules for every server',
  'server/domains/agents/run/browser.ts': 'the process\'s one browser (launched on first need, closed when idle): each visit has a browser context of its own, so servers sharing it share no page state',
  'server/domains/agents/run/browser-strategies.ts': 'axe-core\'s browser build, read once from node_modules: the same text for every server',
  'server/lib/arrival-order.ts': 'a counter that only orders work: every server asks of it a ticket later than the last, which sharing keeps true',
};

function files(dir: string, suffix: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) out.push(...files(path, suffix));
    else if (name.endsWith(suffix)) out.push(path);
  }
  return out;
}

/** Top-level `let` and `var` declarations: mutable module state. */
export function moduleState(source: string): string[] {
  return [...source.matchAll(/^(?:export )?(?:let|var) ([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]!);
}

/** What a test file does to the shared module graph or process and does not undo. */
export function leftBehind(source: string): string[] {
  const problems: string[] = [];
  if (/\bvi\.(?:mock|doMock)\(/.test(source)) problems.push('replaces a module (vi.mock)');
  if (/\bvi\.stubEnv\(/.test(source) && !/\bvi\.unstubAllEnvs\(/.test(source)) problems.push('stubs the environment without vi.unstubAllEnvs()');
  if (/\bvi\.stubGlobal\(/.test(source) && !/\bvi\.unstubAllGlobals\(/.test(source)) problems.push('stubs a global without vi.unstubAllGlobals()');
  if (/\bvi\.useFakeTimers\(/.test(source) && !/\bvi\.useRealTimers\(/.test(source)) problems.push('fakes timers without vi.useRealTimers()');
  if (/\bvi\.spyOn\(/.test(source) && !/\.mockRestore\(|\bvi\.restoreAllMocks\(/.test(source)) problems.push('spies without restoring (mockRestore or vi.restoreAllMocks)');
  return problems;
}

describe('test files sharing a module graph (vitest.config.ts isolate: false)', () => {
  it('is how the suite runs', () => {
    expect(config.test?.isolate).toBe(false);
  });

  it('the server, contract and SDK hold no mutable module state beyond the listed exceptions', () => {
    const found: Record<string, string[]> = {};
    for (const dir of ['server', 'contract', 'sdk']) {
      for (const file of files(dir, '.ts')) {
        const names = moduleState(readFileSync(join(root, file), 'utf8'));
        if (names.length > 0 && !MODULE_STATE[relative('', file)]) found[file] = names;
      }
    }
    expect(found).toEqual({});
    for (const file of Object.keys(MODULE_STATE)) expect(moduleState(readFileSync(join(root, file), 'utf8')), file).not.toEqual([]);
  });

  it('no test file leaves a module replaced, the environment or a global stubbed, or a spy in place', () => {
    const found: Record<string, string[]> = {};
    // This file names what it looks for in its own last test.
    for (const file of files('test', '.test.ts').filter((f) => f !== 'test/unit/test-isolation.test.ts')) {
      const problems = leftBehind(readFileSync(join(root, file), 'utf8'));
      if (problems.length > 0) found[file] = problems;
    }
    expect(found).toEqual({});
  });

  it('the checks see what they look for', () => {
    expect(moduleState('const a = 1;\nlet cache = new Map();\nexport let b;\n  let inner = 2;\n')).toEqual(['cache', 'b']);
    expect(leftBehind("vi.mock('../x.js');")).toEqual(['replaces a module (vi.mock)']);
    expect(leftBehind("vi.stubEnv('A', 'b');")).toHaveLength(1);
    expect(leftBehind("vi.stubEnv('A', 'b'); afterAll(() => vi.unstubAllEnvs());")).toEqual([]);
    expect(leftBehind("vi.stubGlobal('fetch', f);")).toHaveLength(1);
    expect(leftBehind('vi.useFakeTimers();')).toEqual(['fakes timers without vi.useRealTimers()']);
    expect(leftBehind('const s = vi.spyOn(o, "m");')).toHaveLength(1);
    expect(leftBehind('const s = vi.spyOn(o, "m"); s.mockRestore();')).toEqual([]);
  });
});
