import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importGraph } from '../helpers/import-graph.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const DOMAINS = 'server/domains';

/**
 * The shape of a folder in server/domains (docs/architecture.md, Domain modules):
 *
 * - A folder that serves operations has module.ts (what services.ts builds),
 *   router.ts (the thin HTTP handlers) and its rules in service.ts, or in
 *   services/ (one file per aggregate) when it has several; not both. The
 *   router calls the domain only through those. The folders that serve no
 *   operation are listed below with which of the three parts they have and
 *   why.
 * - A folder that owns tables keeps every query in repo.ts, or in repos/
 *   (one file per aggregate) when it has several; not both. No other file
 *   under server/domains calls a Prisma model, runs SQL or imports the
 *   database client: the storage encoding (JSON text, BigInt times) stays
 *   in one place per table, and the services deal in decoded values.
 * - Organizations and users keep their data in the access core's tables and
 *   use its repos: no repo of their own.
 */
const SERVICE = 'service.ts or services/';
const PARTS = ['module.ts', 'router.ts', SERVICE] as const;
type Part = (typeof PARTS)[number];

/** Folders that serve no operation of their own: the parts they have, and why there is no router. */
const NO_OPERATIONS: Record<string, { has: Part[]; why: string }> = {
  access: {
    has: ['module.ts'],
    why: 'the access core: the repos, lookups and checks that organizations, users, permissions and the content domains share; its operations are theirs',
  },
  accounts: {
    has: ['module.ts', SERVICE],
    why: 'workspaces, applications and credentials: the operator CLI and the authentication middleware call its service, and the workspace router its two workspace-token operations (Get Auth Tokens, Get Email Verification Status)',
  },
  email: {
    has: [],
    why: 'a channel of notifications: the notifications module builds it (the send job, its projection and senders) with its own audience',
  },
  'permission-provider': {
    has: [],
    why: "the client that asks an application's permission provider: the workspace module builds it (a changed provider setting clears its cache), Get Permissions and Generate Token ask it",
  },
  workflows: {
    has: [],
    why: 'so far only the pure graph modules (graph/: the definition compiler, the `when` language, templates); drop this exception when the operations come with module.ts, router.ts and the service',
  },
};

/** Folders whose data lives in the access core's tables, which they reach through its repos. */
const DATA_IN_ACCESS_CORE: Record<string, string> = {
  organizations: 'organizations, folders and documents are access-core aggregates',
  users: 'users, user groups and their grants are access-core aggregates',
};

/** Files outside repo.ts and repos/ allowed to reach the database, with the reason. None today. */
const STORAGE_OUTSIDE_REPOS: Record<string, string> = {};

/** Prisma's model methods: a call of one on a model delegate is a query. */
const MODEL_METHODS = [
  'findUnique', 'findUniqueOrThrow', 'findFirst', 'findFirstOrThrow', 'findMany', 'create', 'createMany', 'createManyAndReturn',
  'update', 'updateMany', 'updateManyAndReturn', 'upsert', 'delete', 'deleteMany', 'count', 'aggregate', 'groupBy',
];
const RAW = /\$(?:queryRaw|queryRawUnsafe|executeRaw|executeRawUnsafe|transaction|runCommandRaw)\b/g;
/** Modules that hand out the database: the client itself and the bulk SQL it runs. */
const DATABASE_MODULES = ['server/db/client.ts', 'server/db/bulk.ts'];

interface Rule {
  noOperations: Record<string, { has: Part[] }>;
  dataInAccessCore: Record<string, string>;
}

const isRepoFile = (pathInFolder: string) => pathInFolder === 'repo.ts' || pathInFolder.startsWith('repos/');
const isServiceFile = (pathInFolder: string) => pathInFolder === 'service.ts' || pathInFolder.startsWith('services/');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const foldersOf = (domainsDir: string) => readdirSync(domainsDir).filter((name) => statSync(join(domainsDir, name)).isDirectory()).sort();

/** Where the folders under `domainsDir` (`domains` under `base`) depart from the rule, one line each. */
function shapeProblems(base: string, domains: string, rule: Rule): string[] {
  const problems: string[] = [];
  const domainsDir = join(base, domains);
  const folders = foldersOf(domainsDir);
  const imports = importGraph(base, [domains], { types: true });
  for (const name of Object.keys(rule.noOperations)) if (!folders.includes(name)) problems.push(`${name}: listed as an exception, but there is no such folder`);
  for (const name of Object.keys(rule.dataInAccessCore)) if (!folders.includes(name)) problems.push(`${name}: listed as keeping its data in the access core, but there is no such folder`);
  for (const name of folders) {
    const has = (path: string) => existsSync(join(domainsDir, name, path));
    const expected = rule.noOperations[name]?.has ?? PARTS;
    const found = PARTS.filter((part) => (part === SERVICE ? has('service.ts') || has('services') : has(part)));
    if (found.join() !== PARTS.filter((part) => expected.includes(part)).join()) {
      const why = name in rule.noOperations ? 'its exception says' : 'a folder that serves operations has';
      problems.push(`${name}: has ${found.join(', ') || 'none'} (of ${PARTS.join(', ')}); ${why} ${expected.join(', ') || 'none'}`);
    }
    if (has('service.ts') && has('services')) problems.push(`${name}: has both service.ts and services/ (one service: service.ts; several: services/)`);
    if (has('repo.ts') && has('repos')) problems.push(`${name}: has both repo.ts and repos/ (one repo: repo.ts; several: repos/)`);
    for (const target of imports.get(`${domains}/${name}/router.ts`) ?? []) {
      const inFolder = target.startsWith(`${domains}/${name}/`) ? target.slice(`${domains}/${name}/`.length) : undefined;
      if (inFolder !== undefined && !isServiceFile(inFolder)) problems.push(`${name}: router.ts imports ${inFolder} (the router calls service.ts or services/)`);
    }
    if (name in rule.dataInAccessCore && (has('repo.ts') || has('repos'))) problems.push(`${name}: has a repo, but its data is the access core's (${rule.dataInAccessCore[name]})`);
  }
  return problems;
}

/** The Prisma model delegates (`db.judgment`, …) of the schema's models. */
function delegatesOf(schema: string): string[] {
  return [...schema.matchAll(/^model (\w+) \{/gm)].map((m) => m[1]![0]!.toLowerCase() + m[1]!.slice(1));
}

/**
 * Every query, SQL statement or database import in a file of `domains`
 * (relative to `base`) that is not a repo file, as `path: what`, except
 * the files `allowed` lists.
 */
function storageOutsideRepos(base: string, domains: string, delegates: string[], allowed: Record<string, string>): string[] {
  const calls = new RegExp(`\\.\\s*(?:${delegates.join('|')})\\s*\\.\\s*(?:${MODEL_METHODS.join('|')})\\s*\\(`, 'g');
  const imports = importGraph(base, [domains], { types: true });
  const found: string[] = [];
  for (const file of walk(join(base, domains))) {
    const path = relative(base, file).split('\\').join('/');
    const inFolder = path.slice(domains.length + 1).split('/').slice(1).join('/');
    if (isRepoFile(inFolder) || path in allowed) continue;
    const source = readFileSync(file, 'utf8');
    for (const match of [...source.matchAll(calls), ...source.matchAll(RAW)]) found.push(`${path}: ${match[0].replace(/\s+/g, '')}`);
    for (const target of imports.get(path) ?? []) if (DATABASE_MODULES.includes(target)) found.push(`${path}: imports ${target}`);
  }
  return found.sort();
}

const rule: Rule = { noOperations: NO_OPERATIONS, dataInAccessCore: DATA_IN_ACCESS_CORE };
const delegates = delegatesOf(readFileSync(join(root, 'prisma/models.prisma'), 'utf8'));

describe(`the folders of ${DOMAINS}`, () => {
  it('have module.ts, router.ts and service.ts or services/, or are a listed exception; keep their storage in repo.ts or repos/; organizations and users have no repo', () => {
    expect(shapeProblems(root, DOMAINS, rule)).toEqual([]);
  });

  it('reach the database only from repo files: no model call, raw SQL, transaction or database-client import elsewhere', () => {
    expect(delegates).toContain('judgment');
    expect(storageOutsideRepos(root, DOMAINS, delegates, STORAGE_OUTSIDE_REPOS)).toEqual([]);
    // An exception that no longer reaches the database is dropped from the list.
    const unneeded = Object.keys(STORAGE_OUTSIDE_REPOS).filter((path) => !storageOutsideRepos(root, DOMAINS, delegates, {}).some((line) => line.startsWith(`${path}:`)));
    expect(unneeded).toEqual([]);
  });
});

describe('the checks see a violation when there is one', () => {
  /** A made-up server/domains: `good` follows the rule, every other folder breaks it in the ways named. */
  const files: Record<string, string> = {
    'good/module.ts': '',
    'good/router.ts': "import type { A } from './services/a.js';\nimport type { B } from './services/b.js';\nimport { ok } from '../../http/respond.js';",
    'good/services/a.ts': "export const fine = (client: { messages: { create(): void } }) => client.messages.create();",
    'good/services/b.ts': '',
    'good/repos/a.ts': "import type { Db } from '../../../db/client.js';\nexport const a = (db: Db) => db.judgment.findMany({});",
    // An exception that gained a router, and one whose folder is gone.
    'core/module.ts': '',
    'core/router.ts': '',
    // No router.
    'lacking/module.ts': '',
    'lacking/service.ts': '',
    // Its data is the access core's, yet it has a repo.
    'people/module.ts': '',
    'people/router.ts': '',
    'people/service.ts': '',
    'people/repo.ts': '',
    // service.ts and services/, repo.ts and repos/, a router that reaches past the service, queries outside the repos.
    'both/module.ts': '',
    'both/router.ts': "import type { S } from './service.js';\nimport { shape } from './shapes.js';",
    'both/service.ts': "export async function f(deps: { db: any }) {\n  await deps.db.user.update({});\n  await deps.db.$queryRawUnsafe('SELECT 1');\n}",
    'both/services/c.ts': '',
    'both/repo.ts': '',
    'both/repos/x.ts': '',
    'both/jobs.ts': "import type { Db } from '../../db/client.js';\nexport const g = (tx: Db) => tx.domainEvent\n  .findFirst({});",
  };
  const fake: Rule = { noOperations: { core: { has: ['module.ts'] }, gone: { has: [] } }, dataInAccessCore: { people: 'the core' } };
  const fakeDelegates = ['judgment', 'user', 'domainEvent'];
  let base = '';
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'domain-shape-'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(base, DOMAINS, path)), { recursive: true });
      writeFileSync(join(base, DOMAINS, path), text);
    }
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('the folder shape', () => {
    expect(shapeProblems(base, DOMAINS, fake)).toEqual([
      'gone: listed as an exception, but there is no such folder',
      'both: has both service.ts and services/ (one service: service.ts; several: services/)',
      'both: has both repo.ts and repos/ (one repo: repo.ts; several: repos/)',
      'both: router.ts imports shapes.ts (the router calls service.ts or services/)',
      'core: has module.ts, router.ts (of module.ts, router.ts, service.ts or services/); its exception says module.ts',
      'lacking: has module.ts, service.ts or services/ (of module.ts, router.ts, service.ts or services/); a folder that serves operations has module.ts, router.ts, service.ts or services/',
      "people: has a repo, but its data is the access core's (the core)",
    ]);
  });

  it('the database outside repo files', () => {
    expect(storageOutsideRepos(base, DOMAINS, fakeDelegates, {})).toEqual([
      'server/domains/both/jobs.ts: .domainEvent.findFirst(',
      'server/domains/both/jobs.ts: imports server/db/client.ts',
      'server/domains/both/service.ts: $queryRawUnsafe',
      'server/domains/both/service.ts: .user.update(',
    ]);
    expect(storageOutsideRepos(base, DOMAINS, fakeDelegates, { 'server/domains/both/jobs.ts': 'a reason' })).toEqual([
      'server/domains/both/service.ts: $queryRawUnsafe',
      'server/domains/both/service.ts: .user.update(',
    ]);
  });
});
