import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DATABASE_FREE, matches, NATIVE, RUNTIME, tierSelection } from '../tiers.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * What a test file may not reach, directly or through the test files and
 * helpers it imports, to count as database-free: the helpers that make a
 * database or start a server, the server's entry points and database layer,
 * database and Redis drivers, and child processes (the CLI, `npm start`).
 */
const REACHES_A_DATABASE = [
  'test/helpers/server.ts',
  'test/helpers/database.ts',
  'test/helpers/server-process.ts',
  'test/helpers/template-database.ts',
  'server/main.ts',
  'server/server.ts',
  'server/services.ts',
  'server/cli.ts',
  'server/db/adapter.ts',
  'server/db/client.ts',
  'server/db/migrate.ts',
  'server/db/startup.ts',
  'better-sqlite3',
  'pg',
  'ioredis',
  '@prisma/adapter-better-sqlite3',
  '@prisma/adapter-pg',
  'node:child_process',
  'child_process',
];
/** Read only by tests that use the run's PostgreSQL or Redis. */
const DATABASE_VARIABLES = /process\.env\.(TEST_(?:DATABASE|REDIS)_URL)\b/;

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)]));
}

const testFiles = walk(join(root, 'test'))
  .map((file) => relative(root, file).split('\\').join('/'))
  .filter((file) => file.endsWith('.test.ts'))
  .sort();

/** The modules a source file loads at run time: relative ones as repository paths, packages by name. Type-only imports are left out. */
function valueImports(file: string, source: string): string[] {
  const found: string[] = [];
  const statement = /(?:^|\n)\s*(?:import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const match of source.matchAll(statement)) {
    if (match[1]) continue;
    const braces = /^\{([^}]*)\}$/.exec((match[2] ?? '').trim());
    if (braces && braces[1]!.split(',').map((name) => name.trim()).filter(Boolean).every((name) => name.startsWith('type '))) continue;
    const specifier = (match[3] ?? match[4] ?? match[5])!;
    found.push(specifier.startsWith('.') ? relative(root, resolve(dirname(join(root, file)), specifier.replace(/\.js$/, '.ts'))).split('\\').join('/') : specifier);
  }
  return found;
}

/** Why a test file touches a database, a server or Redis (the chain of imports that gets there), or undefined. */
function reasonItTouchesADatabase(file: string): string | undefined {
  const seen = new Set<string>();
  const visit = (current: string, chain: string[]): string | undefined => {
    if (seen.has(current)) return undefined;
    seen.add(current);
    const source = readFileSync(join(root, current), 'utf8');
    const variable = DATABASE_VARIABLES.exec(source);
    if (variable) return [...chain, `reads ${variable[1]}`].join(' -> ');
    for (const target of valueImports(current, source)) {
      if (REACHES_A_DATABASE.includes(target)) return [...chain, target].join(' -> ');
      // Test code is followed to whatever it imports; the server's own modules are judged by the list above.
      if (target.startsWith('test/') && existsSync(join(root, target))) {
        const reason = visit(target, [...chain, target]);
        if (reason) return reason;
      }
    }
    return undefined;
  };
  return visit(file, [file]);
}

describe('test tiers (test/tiers.ts)', () => {
  it('no database-free test file touches a database, a server or Redis', () => {
    const free = testFiles.filter((file) => DATABASE_FREE.some((entry) => matches(entry, file)));
    expect(free.length).toBeGreaterThan(0);
    expect(free.flatMap((file) => reasonItTouchesADatabase(file) ?? [])).toEqual([]);
  });

  it('the check sees a test file that does', () => {
    const importing = (pattern: RegExp) => testFiles.filter((file) => pattern.test(readFileSync(join(root, file), 'utf8')));
    // Directly: a test file that starts a test server.
    const direct = importing(/^import \{[^}]*\bstartTestServer\b[^}]*\} from '\.\.\/helpers\/server\.js';$/m).find((file) => reasonItTouchesADatabase(file)?.split(' -> ').length === 2);
    expect(direct && reasonItTouchesADatabase(direct)).toMatch(/^test\/[^ ]+ -> (test\/helpers\/server\.ts|server\/[^ ]+|[a-z@:][^ ]*|reads [A-Z_]+)$/);
    // Through a fixture of its own folder (the fuzz suite's shared file) that starts one.
    const indirect = importing(/from '\.\/suite\.js'/);
    expect(indirect.length).toBeGreaterThan(0);
    for (const file of indirect) expect(reasonItTouchesADatabase(file)).toMatch(/ -> test\/fuzz\/suite\.ts -> test\/helpers\/server\.ts$/);
    expect(valueImports('test/x.test.ts', `import type { A } from './a.js';\nimport { type B } from './b.js';\nimport pg from 'pg';\nconst m = await import('./c.js');`)).toEqual(['pg', 'test/c.ts']);
  });

  it('every entry names a test file or a folder holding some (a renamed file must be renamed here too)', () => {
    for (const entry of [...DATABASE_FREE, ...RUNTIME, ...NATIVE]) {
      expect(testFiles.some((file) => matches(entry, file)), entry).toBe(true);
    }
  });

  it('the native tier is a part of the runtime tier', () => {
    for (const entry of NATIVE) expect(RUNTIME.some((runtime) => runtime === entry || (runtime.endsWith('/') && entry.startsWith(runtime))), entry).toBe(true);
  });

  it('the database-free files are left out of the PostgreSQL run and nothing else is', () => {
    const { include, exclude } = tierSelection('database');
    expect(include).toEqual(['test/**/*.test.ts']);
    expect(exclude).toEqual(DATABASE_FREE.map((entry) => (entry.endsWith('/') ? `${entry}**/*.test.ts` : entry)));
    expect(() => tierSelection('sqlite')).toThrow(/TEST_TIER must be one of/);
  });
});
