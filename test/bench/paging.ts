/**
 * Deep paging: Get Documents, Get Users and Get Activity Logs on 1,000,000
 * rows in one organization, page 1 against the page that starts at row 900,000.
 * Keyset paging should make the two cost the same (the target: the
 * deep page within 1.5× of the first).
 *
 * The rows are written with one INSERT … SELECT over a generated series each
 * (a recursive CTE on SQLite, generate_series on PostgreSQL), not requests.
 *
 * Reaching row 900,000 by following 900 page tokens would cost minutes of
 * setup; instead the rows around the target are written first: with only
 * the rows at positions 899,000–900,000 of the list in the table, page 1
 * ends at position 899,999 and its token points after it. The other 998,999 rows are written next, and that same
 * token (bound to the query, not to the data) then opens the page starting
 * at row 900,000, exactly the page 901 that following the tokens would reach.
 */
import { openDatabase } from '../../server/db/client.js';
import { serviceHeaders, type BenchContext, type Scenario } from './scenarios.js';

const ROWS = 1_000_000;
const PAGE_SIZE = 1000;
/** The deep page starts at this row (0-based): page 901 at 1,000 per page. */
const DEEP_ROW = 900_000;
const DEEP_PAGE = DEEP_ROW / PAGE_SIZE + 1;
/** 2026-01-01T00:00:00Z. */
const START_MS = Date.UTC(2026, 0, 1);

const quote = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** Rows `from`..`to` (inclusive) of the series `i`, as a FROM clause for either database. */
function series(provider: 'sqlite' | 'postgresql', from: number, to: number): { with: string; from: string } {
  return provider === 'postgresql'
    ? { with: '', from: `generate_series(${from}, ${to}) AS n(i)` }
    : { with: `WITH RECURSIVE n(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM n WHERE i < ${to})`, from: 'n' };
}

/**
 * Writes rows `i` of the table for the given ranges through `insert` (the
 * statement for one range), then refreshes the planner's statistics.
 */
export async function seed(
  databaseUrl: string,
  table: string,
  ranges: [number, number][],
  insert: (provider: 'sqlite' | 'postgresql', range: { with: string; from: string }) => string,
): Promise<void> {
  const database = await openDatabase(databaseUrl);
  try {
    for (const [from, to] of ranges) {
      if (from > to) continue;
      await database.db.$executeRawUnsafe(insert(database.provider, series(database.provider, from, to)));
    }
    await database.db.$executeRawUnsafe(database.provider === 'postgresql' ? `ANALYZE "${table}"` : 'ANALYZE');
  } finally {
    await database.close();
  }
  // The SQLite driver is synchronous: while it wrote, the server may have closed our idle keep-alive
  // connection unseen. One turn of the event loop lets fetch see that close first.
  await new Promise((resolve) => setTimeout(resolve, 50));
}

/** The application (API key) ID of the bench workspace, which every row carries. */
export async function apiKeyIdOf(ctx: BenchContext): Promise<string> {
  const { apiKey } = await ctx.cli<{ apiKey: { id: string } }>(['workspace', 'get', '--api-key', ctx.workspace.apiKey]);
  return apiKey.id;
}

/**
 * Seeds a 1,000,000-row list and returns the token of the page at DEEP_ROW:
 * writes the rows at DEEP_ROW - PAGE_SIZE .. DEEP_ROW of the list's order,
 * asks for page 1 (those rows), keeps its token, then writes every other
 * row. `newestFirst`: the list shows the rows of the highest `i` first.
 */
async function seedWithDeepToken(
  ctx: BenchContext,
  table: string,
  newestFirst: boolean,
  insert: (provider: 'sqlite' | 'postgresql', range: { with: string; from: string }) => string,
  firstPage: () => Promise<{ pageToken: string | null; first: string | undefined }>,
  idOf: (i: number) => string,
): Promise<string> {
  const rowAt = (position: number) => (newestFirst ? ROWS - 1 - position : position);
  const [low, high] = [rowAt(DEEP_ROW - PAGE_SIZE), rowAt(DEEP_ROW)].sort((a, b) => a - b) as [number, number];
  await seed(ctx.databaseUrl, table, [[low, high]], insert);
  const page = await firstPage();
  const expected = idOf(rowAt(DEEP_ROW - PAGE_SIZE));
  if (page.first !== expected || page.pageToken === null) {
    throw new Error(`${table}: the partial first page starts at ${page.first} (expected ${expected}) with token ${page.pageToken}`);
  }
  await seed(ctx.databaseUrl, table, [[0, low - 1], [high + 1, ROWS - 1]], insert);
  return page.pageToken;
}

/** A scenario pair: page 1 and the page at DEEP_ROW, sharing one seeding. */
function pagePair(options: {
  label: string;
  /** What the rows are, for the scenario's name. */
  noun: string;
  setup(ctx: BenchContext): Promise<string>;
  request(ctx: BenchContext, pageToken: string | undefined): { path: string; body: unknown };
}): Scenario[] {
  let seeded: Promise<string> | undefined;
  let deepToken = '';
  const setup = async (ctx: BenchContext) => {
    seeded ??= options.setup(ctx);
    deepToken = await seeded;
  };
  const rows = `(${ROWS.toLocaleString('en-US')} ${options.noun})`;
  return [
    {
      name: `${options.label} page 1 ${rows}`,
      setup,
      request: (ctx) => ({ ...options.request(ctx, undefined), headers: serviceHeaders(ctx.workspace) }),
    },
    {
      name: `${options.label} page ${DEEP_PAGE} ${rows}`,
      setup,
      request: (ctx) => ({ ...options.request(ctx, deepToken), headers: serviceHeaders(ctx.workspace) }),
    },
  ];
}

// ---------------------------------------------------------------- activity logs

const ACTIVITY_ORG = 'bench-act-org';
const activityId = (i: number) => `act_bench${1_000_000 + i}`;

export const activityInsert = (apiKeyId: string, organizationId = ACTIVITY_ORG, idPrefix = 'act_bench') => (_provider: 'sqlite' | 'postgresql', n: { with: string; from: string }) => `
  ${n.with}
  INSERT INTO "Activity" ("apiKeyId", "id", "organizationId", "documentId", "featureType", "actionType", "userId", "actionUser",
                          "targetEntityId", "template", "templateData", "timestamp")
  SELECT ${quote(apiKeyId)}, ${quote(idPrefix)} || (1000000 + i), ${quote(organizationId)}, 'bench-doc-' || (i % 100),
         CASE i % 3 WHEN 0 THEN 'comment' WHEN 1 THEN 'reaction' ELSE 'custom' END, 'comment.add', 'bench-u' || (i % 50),
         '{"userId":"bench-u' || (i % 50) || '","name":"Bench User ' || (i % 50) || '"}', 'ann-' || (i % 5000),
         '{{actionUser.name}} commented', '{"actionUser":{"userId":"bench-u' || (i % 50) || '","name":"Bench User ' || (i % 50) || '"},"commentId":"c' || i || '"}',
         ${START_MS} + i
  FROM ${n.from}`;

/**
 * Get Activity Logs at the default page size (1,000) and order (newest
 * first): every record in one organization, unfiltered.
 */
const activityPages = pagePair({
  label: 'Get Activity Logs',
  noun: 'records',
  async setup(ctx) {
    const headers = serviceHeaders(ctx.workspace);
    await ctx.post('/v2/organizations/add', { data: { organizationId: ACTIVITY_ORG } }, headers);
    const apiKeyId = await apiKeyIdOf(ctx);
    return seedWithDeepToken(
      ctx,
      'Activity',
      true,
      activityInsert(apiKeyId),
      async () => {
        const body = await ctx.post<{ result: { data: { id: string }[]; pageToken: string | null } }>(
          '/v2/activities/get',
          { data: { organizationId: ACTIVITY_ORG } },
          headers,
        );
        return { pageToken: body.result.pageToken, first: body.result.data[0]?.id };
      },
      activityId,
    );
  },
  request: (_ctx, pageToken) => ({ path: '/v2/activities/get', body: { data: { organizationId: ACTIVITY_ORG, ...(pageToken ? { pageToken } : {}) } } }),
});

// ---------------------------------------------------------------- documents

const DOCUMENT_ORG = 'bench-docs-org';
const documentId = (i: number) => `bench-doc-${1_000_000 + i}`;

/** Documents at the top of the organization, one second apart (createdAt in Unix ms, as every table stores time). */
export const documentInsert = (apiKeyId: string, organizationId = DOCUMENT_ORG) => (_provider: 'sqlite' | 'postgresql', n: { with: string; from: string }) => {
  const at = `(${START_MS} + i * 1000)`;
  return `
  ${n.with}
  INSERT INTO "Document" ("apiKeyId", "organizationId", "id", "name", "folderId", "accessType", "disabled", "createdAt", "updatedAt")
  SELECT ${quote(apiKeyId)}, ${quote(organizationId)}, 'bench-doc-' || (1000000 + i), 'Document ' || i, NULL, 'organizationPrivate', false, ${at}, ${at}
  FROM ${n.from}`;
};

/** Get Documents at the default page size (1,000): every document of one organization, oldest first. */
const documentPages = pagePair({
  label: 'Get Documents',
  noun: 'documents',
  async setup(ctx) {
    const headers = serviceHeaders(ctx.workspace);
    await ctx.post('/v2/organizations/add', { data: { organizationId: DOCUMENT_ORG } }, headers);
    const apiKeyId = await apiKeyIdOf(ctx);
    return seedWithDeepToken(
      ctx,
      'Document',
      false,
      documentInsert(apiKeyId),
      async () => {
        const body = await ctx.post<{ result: { data: { id: string }[]; pageToken: string | null } }>(
          '/v2/organizations/documents/get',
          { data: { organizationId: DOCUMENT_ORG } },
          headers,
        );
        return { pageToken: body.result.pageToken, first: body.result.data[0]?.id };
      },
      documentId,
    );
  },
  request: (_ctx, pageToken) => ({ path: '/v2/organizations/documents/get', body: { data: { organizationId: DOCUMENT_ORG, ...(pageToken ? { pageToken } : {}) } } }),
});

// ---------------------------------------------------------------- organization members

const MEMBER_ORG = 'bench-members-org';
const memberId = (i: number) => `bench-member-${1_000_000 + i}`;

/**
 * Organization-level grants (membership), one second apart. No User rows:
 * Get Users shows a member without a profile by its ID, and the page's
 * profile lookup costs the same either way.
 */
const memberInsert = (apiKeyId: string) => (_provider: 'sqlite' | 'postgresql', n: { with: string; from: string }) => {
  const at = `(${START_MS} + i * 1000)`;
  return `
  ${n.with}
  INSERT INTO "Grant" ("apiKeyId", "organizationId", "resourceType", "resourceId", "principalType", "principalId", "accessRole", "expiresAt", "accessFields", "createdAt", "updatedAt")
  SELECT ${quote(apiKeyId)}, ${quote(MEMBER_ORG)}, 'organization', ${quote(MEMBER_ORG)}, 'user', 'bench-member-' || (1000000 + i), 'editor', NULL, NULL, ${at}, ${at}
  FROM ${n.from}`;
};

/** Get Users of an organization at the default page size (1,000), oldest membership first. */
const memberPages = pagePair({
  label: 'Get Users',
  noun: 'members',
  async setup(ctx) {
    const headers = serviceHeaders(ctx.workspace);
    await ctx.post('/v2/organizations/add', { data: { organizationId: MEMBER_ORG } }, headers);
    const apiKeyId = await apiKeyIdOf(ctx);
    return seedWithDeepToken(
      ctx,
      'Grant',
      false,
      memberInsert(apiKeyId),
      async () => {
        const body = await ctx.post<{ result: { data: { userId: string }[]; pageToken: string | null } }>('/v2/users/get', { data: { organizationId: MEMBER_ORG } }, headers);
        return { pageToken: body.result.pageToken, first: body.result.data[0]?.userId };
      },
      memberId,
    );
  },
  request: (_ctx, pageToken) => ({ path: '/v2/users/get', body: { data: { organizationId: MEMBER_ORG, ...(pageToken ? { pageToken } : {}) } } }),
});

export const pagingScenarios: Scenario[] = [...documentPages, ...memberPages, ...activityPages];
