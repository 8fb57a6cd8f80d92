import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contract } from '../../contract/index.js';

/**
 * Tests a newcomer can find: the HTTP tests of each operation declared in
 * contract/<domain>/<file>.ts live in test/http/<domain>/<file>.test.ts
 * (test/webhooks/<file>.test.ts for the webhook operations: every webhook test
 * is in that one folder), and the operation's `summary` is the title of a
 * `describe` there, or part of one. Where one contract file's tests are too
 * many for one file they go in parts next to it: <file>.<part>.test.ts.
 * Files of rules that cut across operations (owned-data, projection, tenancy…)
 * sit beside these; this guard does not look at them.
 */
const root = new URL('../../', import.meta.url);
const contractDir = new URL('contract/', root);

/** The test files of one contract file, relative to the repository root. */
function testFilesOf(domain: string, file: string): string[] {
  const dir = domain === 'webhooks' ? 'test/webhooks/' : `test/http/${domain}/`;
  if (!existsSync(new URL(dir, root))) return [];
  return readdirSync(new URL(dir, root))
    .filter((name) => name === `${file}.test.ts` || (name.startsWith(`${file}.`) && name.endsWith('.test.ts') && !name.slice(file.length + 1, -'.test.ts'.length).includes('.')))
    .map((name) => `${dir}${name}`);
}

/** Every describe title in a test file's text (a template literal's up to its first `${`). */
function describeTitles(text: string): string[] {
  const titles: string[] = [];
  for (const match of text.matchAll(/\bdescribe(?:\.\w+)*\(\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1/g)) titles.push(match[2]!.replace(/\\(.)/g, '$1'));
  return titles;
}

/** The contract file (domain/file) declaring each operation path. */
const fileOfPath = new Map<string, { domain: string; file: string }>();
for (const domain of readdirSync(contractDir, { withFileTypes: true })) {
  if (!domain.isDirectory()) continue;
  for (const name of readdirSync(new URL(`${domain.name}/`, contractDir))) {
    if (!name.endsWith('.ts')) continue;
    const module = (await import(new URL(`${domain.name}/${name}`, contractDir).href)) as Record<string, unknown>;
    for (const value of Object.values(module)) {
      const route = value as { path?: unknown; summary?: unknown } | null;
      if (route && typeof route === 'object' && typeof route.path === 'string' && typeof route.summary === 'string') {
        fileOfPath.set(route.path, { domain: domain.name, file: name.slice(0, -'.ts'.length) });
      }
    }
  }
}

const operations = Object.entries(contract).flatMap(([group, routes]) =>
  Object.entries(routes as Record<string, { path: string; summary: string }>).map(([name, route]) => ({ id: `${group}.${name}`, ...route, ...fileOfPath.get(route.path) })),
);

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const longestFirst = [...new Set(operations.map((op) => op.summary))].sort((a, b) => b.length - a.length);

/** The summaries a describe title names: longest first, so "Delete Users" is not found in "Delete Users from Groups". */
function summariesIn(title: string): Set<string> {
  const named = new Set<string>();
  let rest = title;
  for (const summary of longestFirst) {
    const pattern = new RegExp(`(?<![\\w(])${escape(summary)}(?![\\w(])`, 'g');
    if (pattern.test(rest)) {
      named.add(summary);
      rest = rest.replace(pattern, '\u0000');
    }
  }
  return named;
}

describe('test layout', () => {
  it('finds the contract file of every operation', () => {
    expect(operations.filter((op) => !op.domain).map((op) => `${op.id} (${op.path})`)).toEqual([]);
  });

  it('has each operation summary as a describe title in the test file named after its contract file', () => {
    const missing = operations.flatMap((op) => {
      const files = testFilesOf(op.domain!, op.file!);
      const expected = op.domain === 'webhooks' ? `test/webhooks/${op.file}.test.ts` : `test/http/${op.domain}/${op.file}.test.ts`;
      if (files.length === 0) return [`"${op.summary}" (${op.id}, contract/${op.domain}/${op.file}.ts): no ${expected}`];
      const found = files.some((path) => describeTitles(readFileSync(new URL(path, root), 'utf8')).some((title) => summariesIn(title).has(op.summary)));
      return found ? [] : [`"${op.summary}" (${op.id}, contract/${op.domain}/${op.file}.ts): in no describe of ${files.join(', ')}`];
    });
    expect(missing, `${missing.length} of ${operations.length} operation summaries are in no describe of their test file`).toEqual([]);
  });
});
