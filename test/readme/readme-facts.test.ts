// Keeps the tables of the README and docs/ equal to the code they describe:
// the configuration variables, the status of every operation, the operator
// CLI's commands, the real-time client example, the Node versions, the
// README's length, and the links of every document.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '../../contract/index.js';
import { USAGE } from '../../server/cli.js';
import { loadConfig } from '../../server/config.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { README, ROOT, codeBlocks, codeSpans, section, tableRows } from './readme.js';

/** The README is the front door: what it is, a quick start, install, links. The rest lives in docs/. */
const README_MAX_LINES = 300;

const VARIABLE = /^[A-Z][A-Z0-9_]+$/;

/** Every .ts file under a directory, generated code left out. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The environment variables the server reads: whatever loadConfig asks for, and any `env.NAME` read elsewhere in server/. */
function variablesRead(): Set<string> {
  const read = new Set<string>();
  const recorder = new Proxy({} as NodeJS.ProcessEnv, {
    get: (_target, name) => {
      if (typeof name === 'string') read.add(name);
      return undefined;
    },
  });
  loadConfig(recorder);
  for (const file of sources(join(ROOT, 'server'))) {
    const text = readFileSync(file, 'utf8');
    for (const [, dotted, indexed] of text.matchAll(/\benv\??\.([A-Z][A-Z0-9_]*)\b|\benv\[['"]([A-Z][A-Z0-9_]*)['"]\]/g)) read.add((dotted ?? indexed)!);
  }
  return new Set([...read].filter((name) => VARIABLE.test(name)));
}

interface Operation {
  path: string;
  summary: string;
}

/** The contract's operations: summary → its paths (an alias adds its path to the operation it aliases). */
function contractOperations(): Map<string, string[]> {
  const operations = new Map<string, string[]>();
  const all = Object.values(contract).flatMap((group) => Object.values(group as Record<string, Operation>));
  for (const { summary, path } of [...all].sort((a, b) => Number(a.summary.endsWith(' (alias)')) - Number(b.summary.endsWith(' (alias)')))) {
    const name = summary.replace(/ \(alias\)$/, '');
    operations.set(name, [...(operations.get(name) ?? []), path]);
  }
  return operations;
}

describe('Configuration', () => {
  /** The variables named in the first cell of each row of a section's table. */
  const variablesOf = (text: string) => tableRows(text).flatMap(([cell]) => codeSpans(cell!));

  it('the operator guide lists every variable the server reads, and only those', () => {
    const listed = variablesOf(section('Configuration', 'docs/operations.md'));
    expect(listed.every((name) => VARIABLE.test(name)), `not variable names: ${listed.filter((name) => !VARIABLE.test(name)).join(', ')}`).toBe(true);
    expect(new Set(listed).size, 'a variable is listed twice').toBe(listed.length);
    expect([...listed].sort()).toEqual([...variablesRead()].sort());
  });

  it("the README's summary names only variables the server reads, each once", () => {
    const summary = variablesOf(section('Configuration', 'README.md'));
    expect(summary.length).toBeGreaterThan(0);
    expect(new Set(summary).size, 'a variable is listed twice').toBe(summary.length);
    const read = variablesRead();
    expect(summary.filter((name) => !read.has(name))).toEqual([]);
  });

  it('finds the variables read outside loadConfig', () => {
    // The source scan is what catches these two: if it broke, the test above would pass without them.
    expect([...variablesRead()]).toEqual(expect.arrayContaining(['DATABASE_POOL_SIZE', 'SHUTDOWN_TIMEOUT_MS', 'OPENAI_CUSTOM_HEADERS']));
  });
});

describe('Status', () => {
  const rows = tableRows(section('Status'));

  it('lists every operation of the contract with its paths, and nothing else', () => {
    const listed = new Map(rows.map(([operation, paths]) => [operation!, codeSpans(paths!)]));
    expect(listed.size, 'an operation is listed twice').toBe(rows.length);
    expect(Object.fromEntries(listed)).toEqual(Object.fromEntries(contractOperations()));
  });

  it('says each is available, and whether the specification lists it', () => {
    for (const [operation, , specification, available] of rows) {
      expect({ operation, available }).toEqual({ operation, available: 'yes' });
      expect(['listed', 'named', 'added']).toContain(specification);
    }
  });

  describe('every path it lists answers', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer();
    });
    afterAll(async () => {
      await server?.close();
    });

    it('with an operation (no credentials: not NOT_FOUND), where an unlisted path is NOT_FOUND', async () => {
      const unknown = await server.post('/v2/not/an/operation', { data: {} });
      expect(unknown.status).toBe(404);
      const paths = rows.flatMap(([, cell]) => codeSpans(cell!));
      const answers = await Promise.all(paths.map(async (path) => [path, (await server.post(path, { data: {} })).status] as const));
      expect(answers.filter(([, status]) => status === 404)).toEqual([]);
    });
  });
});

describe('Operator CLI', () => {
  it('shows every command of the CLI, and only those', () => {
    const listed = tableRows(section('Operator CLI')).map(([command]) => codeSpans(command!)[0]);
    const commands = USAGE.split('\n').map((line) => line.trim());
    expect([...listed].sort()).toEqual([...commands].sort());
  });
});

describe('Real-time client', () => {
  it('shows examples/realtime-client.mjs as it is', () => {
    const [shown] = codeBlocks(section('Real-time client'), 'js');
    expect(shown).toBe(readFileSync(join(ROOT, 'examples', 'realtime-client.mjs'), 'utf8'));
  });
});

describe('Node versions', () => {
  /** Majors and minimums ("20.19+") named after "Needs Node.js" in a section, up to its colon or link. */
  const named = (title: string) => {
    const text = /Needs Node\.js ([\s\S]*?)(?::|\(\[)/.exec(section(title))?.[1] ?? '';
    const tokens = [...text.matchAll(/\b(\d+)(?:\.(\d+)\+)?/g)];
    return {
      majors: [...new Set(tokens.map(([, major]) => major!))],
      minimums: tokens.filter(([, , minor]) => minor).map(([, major, minor]) => `${major}.${minor}`),
    };
  };
  const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
  const ranges = engines.split('||').map((range) => /^\^(\d+)\.(\d+)\.\d+$/.exec(range.trim()));

  it('are those package.json accepts, with their minimums', () => {
    expect(ranges.every(Boolean), engines).toBe(true);
    const expected = {
      majors: ranges.map((range) => range![1]!),
      minimums: ranges.filter((range) => range![2] !== '0').map((range) => `${range![1]}.${range![2]}`),
    };
    expect(named('Quick start')).toEqual(expected);
    expect(named('Install and run')).toEqual(expected);
    // Both are the README's: the front door says which Node to install.
    expect(section('Quick start', 'README.md')).toBe(section('Quick start'));
    expect(section('Install and run', 'README.md')).toBe(section('Install and run'));
  });

  it('are each tested by .ci/run: the oldest as the machine\'s Node, the others through .ci/test-on-node', () => {
    const run = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
    const others = [...run.matchAll(/^[^#\n]*\.ci\/test-on-node(?: --[a-z-]+)*((?: \d+)+)$/gm)].flatMap((match) => match[1]!.trim().split(' '));
    expect([ranges[0]![1], ...new Set(others)].sort((a, b) => Number(a) - Number(b))).toEqual(ranges.map((range) => range![1]));
  });
});

describe('section()', () => {
  it('refuses a title no document has, and one several have unless the document is named', () => {
    expect(() => section('No such section')).toThrow(/no document has a section/);
    expect(() => section('Configuration')).toThrow(/several documents have a section "## Configuration": README.md, docs\/operations.md/);
    expect(section('Configuration', 'README.md')).not.toBe(section('Configuration', 'docs/operations.md'));
  });
});

describe('README', () => {
  it(`stays the front door: at most ${README_MAX_LINES} lines`, () => {
    expect(README.split('\n').length - (README.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(README_MAX_LINES);
  });
});

describe('Links', () => {
  /** GitHub's anchors of a markdown text's headings. */
  const anchorsOf = (text: string): Set<string> => {
    const anchors = new Set<string>();
    const seen = new Map<string, number>();
    for (const [, title] of text.replace(/^```[\s\S]*?^```$/gm, '').matchAll(/^#{1,6} (.+)$/gm)) {
      const slug = title!.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
      const n = seen.get(slug) ?? 0;
      seen.set(slug, n + 1);
      anchors.add(n === 0 ? slug : `${slug}-${n}`);
    }
    return anchors;
  };
  const documents = ['README.md', 'CHANGELOG.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

  it.each(documents)('in %s lead to a heading (GitHub anchors) or a file of the repository, and a heading in that file', (document) => {
    const text = readFileSync(join(ROOT, document), 'utf8');
    const prose = text.replace(/^```[\s\S]*?^```$/gm, '');
    const targets = [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map(([, target]) => target!).filter((target) => !/^[a-z]+:/.test(target));
    expect(targets.length).toBeGreaterThan(0);
    const broken = targets.filter((target) => {
      const [path, anchor] = target.split('#');
      const file = path === '' ? join(ROOT, document) : join(ROOT, dirname(document), path!);
      if (!existsSync(file)) return true;
      return anchor !== undefined && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(anchor);
    });
    expect(broken).toEqual([]);
  });
});
