/**
 * The data-bound scenarios that have a floor (test/bench/floor-server.mjs):
 * run.ts checks the floor's answer equal to the server's, then benches both
 * and reports server ÷ floor. The lists are 20,000 rows each (the issue's
 * figures), written with paging.ts's bulk inserts into organizations of
 * their own; each scenario reads page 1 at the default size (1,000).
 */
import { activityInsert, apiKeyIdOf, documentInsert, seed } from './paging.js';
import { serviceHeaders, type BenchContext, type Scenario } from './scenarios.js';

const ROWS = 20_000;
const rows = ROWS.toLocaleString('en-US');

/** Creates the organization and writes rows 0..ROWS-1 with `insert`, once. */
function seeded(
  organizationId: string,
  table: string,
  insert: (apiKeyId: string) => Parameters<typeof seed>[3],
): (ctx: BenchContext) => Promise<void> {
  return async (ctx) => {
    await ctx.post('/v2/organizations/add', { data: { organizationId } }, serviceHeaders(ctx.workspace));
    await seed(ctx.databaseUrl, table, [[0, ROWS - 1]], insert(await apiKeyIdOf(ctx)));
  };
}

const ACTIVITY_ORG = 'bench-floor-act-org';
const DOCUMENT_ORG = 'bench-floor-docs-org';

export const floorScenarios: Scenario[] = [
  {
    name: `Get Activity Logs page (${rows} records)`,
    floor: true,
    setup: seeded(ACTIVITY_ORG, 'Activity', (apiKeyId) => activityInsert(apiKeyId, ACTIVITY_ORG, 'act_floor')),
    request: (ctx) => ({ path: '/v2/activities/get', headers: serviceHeaders(ctx.workspace), body: { data: { organizationId: ACTIVITY_ORG } } }),
  },
  {
    name: `Get Documents page (${rows} documents)`,
    floor: true,
    setup: seeded(DOCUMENT_ORG, 'Document', (apiKeyId) => documentInsert(apiKeyId, DOCUMENT_ORG)),
    request: (ctx) => ({ path: '/v2/organizations/documents/get', headers: serviceHeaders(ctx.workspace), body: { data: { organizationId: DOCUMENT_ORG } } }),
  },
];
