// Get Activity Logs: every filter alone and in every combination, both
// orders, keyset paging (forged tokens refused, stable while records are
// added), against a model of the records the test added.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TActivity } from '../../../contract/activities/schemas.js';
import { testClock } from '../../../server/lib/clock.js';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

const ORG = 'act-org';
const clock = testClock(Date.UTC(2026, 2, 1));
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
/** Every record added, in the order added. */
const all: TActivity[] = [];

const FEATURES = ['comment', 'reaction', 'recorder', 'crdt', 'custom'] as const;
const ACTIONS = ['comment.add', 'comment.reaction_add', 'x.custom', 'recorder.done'];

/** 45 records in 15 batches; a batch shares one timestamp (so the ID breaks ties), and time moves by 0–2 ms between batches. */
async function seed() {
  for (let batch = 0; batch < 15; batch++) {
    const activities = Array.from({ length: 3 }, (_, k) => {
      const i = batch * 3 + k;
      return {
        ...(i % 4 === 3 ? {} : { documentId: i % 4 === 0 ? 'doc-a' : 'doc-b' }),
        featureType: FEATURES[i % 5]!,
        actionType: ACTIONS[i % 4]!,
        actionUser: { userId: `u${i % 3}`, name: `User ${i % 3}` },
        targetEntityId: `t${i % 6}`,
        displayMessageTemplate: '{{actionUser.name}} did {{what}}',
        displayMessageTemplateData: { actionUser: { name: `User ${i % 3}` }, what: `thing ${i}` },
      };
    });
    all.push(...(await client.activities.addActivities({ organizationId: ORG, activities })).data);
    clock.advance(batch % 3);
  }
}

beforeAll(async () => {
  server = await startTestServer({}, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  await client.organizations.addOrganization({ organizationId: ORG });
  for (const documentId of ['doc-a', 'doc-b']) await client.organizations.addDocument({ organizationId: ORG, documentId });
  await seed();
});
afterAll(() => server?.close());

type Filter = {
  documentId?: string;
  targetEntityId?: string;
  featureTypes?: (typeof FEATURES)[number][];
  actionTypes?: string[];
  userId?: string;
  activityIds?: string[];
};

function expected(filter: Filter, order: 'asc' | 'desc'): string[] {
  const matching = all.filter(
    (a) =>
      (filter.documentId === undefined || a.metadata.documentId === filter.documentId) &&
      (filter.targetEntityId === undefined || a.targetEntityId === filter.targetEntityId) &&
      (filter.featureTypes === undefined || filter.featureTypes.includes(a.featureType)) &&
      (filter.actionTypes === undefined || filter.actionTypes.includes(a.actionType)) &&
      (filter.userId === undefined || a.actionUser.userId === filter.userId) &&
      (filter.activityIds === undefined || filter.activityIds.includes(a.id)),
  );
  const sorted = matching.sort((x, y) => x.timestamp - y.timestamp || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  return (order === 'asc' ? sorted : sorted.reverse()).map((a) => a.id);
}

/** Every page of a query; checks that each page holds at most pageSize records. */
async function pages(filter: Filter & { order?: 'asc' | 'desc' }, pageSize: number): Promise<string[]> {
  const seen: string[] = [];
  let pageToken: string | undefined;
  do {
    const page = await client.activities.getActivityLogs({ organizationId: ORG, ...filter, pageSize, ...(pageToken ? { pageToken } : {}) });
    expect(page.data.length).toBeLessThanOrEqual(pageSize);
    seen.push(...page.data.map((a) => a.id));
    pageToken = page.pageToken ?? undefined;
  } while (pageToken);
  return seen;
}

describe('Get Activity Logs', () => {
  it('returns every record, newest first by default, with the spec fields and the caller\'s API key in metadata', async () => {
    const { data, pageToken } = await client.activities.getActivityLogs({ organizationId: ORG });
    expect(pageToken).toBeNull();
    expect(data.map((a) => a.id)).toEqual(expected({}, 'desc'));
    const first = all[0]!;
    expect(data.find((a) => a.id === first.id)).toEqual({
      id: first.id,
      featureType: 'comment',
      actionType: 'comment.add',
      actionUser: { userId: 'u0', name: 'User 0' },
      targetEntityId: 't0',
      displayMessageTemplate: '{{actionUser.name}} did {{what}}',
      displayMessageTemplateData: { actionUser: { name: 'User 0' }, what: 'thing 0' },
      metadata: { apiKey: ws.apiKey, organizationId: ORG, documentId: 'doc-a' },
      timestamp: Date.UTC(2026, 2, 1),
    });
    expect(data.find((a) => a.id === all[3]!.id)!.metadata).toEqual({ apiKey: ws.apiKey, organizationId: ORG });
    expect(first.id).toMatch(/^act_/);
  });

  it('orders by timestamp (ties by ID) asc or desc', async () => {
    const asc = (await client.activities.getActivityLogs({ organizationId: ORG, order: 'asc' })).data.map((a) => a.id);
    expect(asc).toEqual(expected({}, 'asc'));
    expect(asc).toEqual([...expected({}, 'desc')].reverse());
  });

  // Each filter alone and every combination of them, in both orders, paged 4 at a time.
  const values: Required<Filter> = {
    documentId: 'doc-a',
    targetEntityId: 't0',
    featureTypes: ['comment', 'custom'],
    actionTypes: ['comment.add', 'x.custom'],
    userId: 'u0',
    activityIds: [],
  };
  const keys = Object.keys(values) as (keyof Filter)[];
  const combinations = Array.from({ length: 2 ** keys.length }, (_, mask) => keys.filter((_, bit) => mask & (1 << bit)));

  it.each(['asc', 'desc'] as const)('applies every filter and every combination of them (%s)', async (order) => {
    // activityIds: every third record, so it narrows the other filters without emptying them
    values.activityIds = all.filter((_, i) => i % 3 === 0).map((a) => a.id).slice(0, 15);
    let nonEmpty = 0;
    for (const combination of combinations) {
      const filter = Object.fromEntries(combination.map((k) => [k, values[k]])) as Filter;
      const want = expected(filter, order);
      if (want.length > 0) nonEmpty++;
      expect({ filter, ids: await pages({ ...filter, order }, 4) }).toEqual({ filter, ids: want });
    }
    // The data set makes most combinations non-empty, so the comparison means something.
    expect(nonEmpty).toBeGreaterThan(40);
  });

  it('takes several values per list filter and single ones, deduplicated', async () => {
    for (const featureTypes of [['crdt'], ['reaction', 'crdt', 'recorder'], ['custom', 'custom']] as const) {
      const filter = { featureTypes: [...featureTypes] };
      expect(await pages(filter, 2)).toEqual(expected(filter, 'desc'));
    }
    const actionTypes = { actionTypes: [...ACTIONS, 'never.happened'] };
    expect(await pages(actionTypes, 5)).toEqual(expected(actionTypes, 'desc'));
  });

  it('pages one record at a time through everything, in both orders', async () => {
    expect(await pages({}, 1)).toEqual(expected({}, 'desc'));
    expect(await pages({ order: 'asc' }, 1)).toEqual(expected({}, 'asc'));
  });

  it('neither skips nor repeats a record while records are added between pages', async () => {
    for (const order of ['desc', 'asc'] as const) {
      const before = expected({}, order);
      const seen: string[] = [];
      let pageToken: string | undefined;
      let round = 0;
      do {
        const page = await client.activities.getActivityLogs({ organizationId: ORG, order, pageSize: 7, ...(pageToken ? { pageToken } : {}) });
        seen.push(...page.data.map((a) => a.id));
        pageToken = page.pageToken ?? undefined;
        // Some inserts land in the same millisecond as records already listed, some later.
        if (round++ % 2 === 1) clock.advance(1);
        all.push(...(await client.activities.addActivities({ organizationId: ORG, activities: [newRecord(), newRecord()] })).data);
      } while (pageToken);
      expect(new Set(seen).size).toBe(seen.length);
      // desc: new records are newer than the first page, so none of them shows up; asc: they come after the old ones.
      if (order === 'desc') expect(seen).toEqual(before);
      else expect(seen.slice(0, before.length)).toEqual(before);
    }
  });

  it('refuses a forged token, a token of another query or order, and a pageSize out of range', async () => {
    const { pageToken } = await client.activities.getActivityLogs({ organizationId: ORG, pageSize: 2 });
    const [body, tag] = pageToken!.split('.');
    const forged = `${Buffer.from(JSON.stringify([0, 'act_'])).toString('base64url')}.${tag}`;
    await expectCollabError(client.activities.getActivityLogs({ organizationId: ORG, pageSize: 2, pageToken: forged }), 'INVALID_ARGUMENT', /pageToken/);
    await expectCollabError(client.activities.getActivityLogs({ organizationId: ORG, pageToken: `${body}.${tag}x` }), 'INVALID_ARGUMENT', /pageToken/);
    await expectCollabError(client.activities.getActivityLogs({ organizationId: ORG, order: 'asc', pageToken: pageToken! }), 'INVALID_ARGUMENT', /pageToken/);
    await expectCollabError(client.activities.getActivityLogs({ organizationId: ORG, userId: 'u0', pageToken: pageToken! }), 'INVALID_ARGUMENT', /pageToken/);
    await expectCollabError(client.activities.getActivityLogs({ organizationId: ORG, pageToken: 'garbage' }), 'INVALID_ARGUMENT', /pageToken/);
    // The same query with its token goes on.
    expect((await client.activities.getActivityLogs({ organizationId: ORG, pageSize: 2, pageToken: pageToken! })).data).toHaveLength(2);
    await expectCollabError(client.activities.getActivityLogs({ organizationId: ORG, pageSize: 0 }), 'INVALID_ARGUMENT', /data\.pageSize/);
    await expectCollabError(client.activities.getActivityLogs({ organizationId: ORG, pageSize: 1001 }), 'INVALID_ARGUMENT', /data\.pageSize/);
  });

  it('a token of another application is refused', async () => {
    const other = await server.workspace();
    const otherClient = server.client(other);
    await otherClient.organizations.addOrganization({ organizationId: ORG });
    await otherClient.activities.addActivities({ organizationId: ORG, activities: [newRecord(), newRecord()] });
    const { pageToken } = await otherClient.activities.getActivityLogs({ organizationId: ORG, pageSize: 1 });
    // The other application's organization of the same ID holds only its own records.
    const theirs = (await otherClient.activities.getActivityLogs({ organizationId: ORG })).data;
    expect(theirs.map((a) => a.targetEntityId).sort()).toEqual([`late-${extra - 1}`, `late-${extra}`].sort());
    expect(theirs.every((a) => a.metadata.apiKey === other.apiKey)).toBe(true);
    await expectCollabError(client.activities.getActivityLogs({ organizationId: ORG, pageSize: 1, pageToken: pageToken! }), 'INVALID_ARGUMENT', /pageToken/);
  });

  it('bounds the list filters and validates their values', async () => {
    const many = Array.from({ length: 31 }, (_, i) => `x${i}`);
    await expectCollabError(client.activities.getActivityLogs({ organizationId: ORG, actionTypes: many }), 'INVALID_ARGUMENT', /data\.actionTypes/);
    await expectCollabError(client.activities.getActivityLogs({ organizationId: ORG, activityIds: many }), 'INVALID_ARGUMENT', /data\.activityIds/);
    await expectCollabError(client.activities.getActivityLogs({ organizationId: ORG, featureTypes: ['huddle' as 'custom'] }), 'INVALID_ARGUMENT', /data\.featureTypes/);
    await expectCollabError(client.activities.getActivityLogs({ organizationId: ORG, featureTypes: [] }), 'INVALID_ARGUMENT', /data\.featureTypes/);
    await expectCollabError(client.activities.getActivityLogs({ organizationId: ORG, order: 'newest' as 'asc' }), 'INVALID_ARGUMENT', /data\.order/);
    // 30 is fine.
    expect((await client.activities.getActivityLogs({ organizationId: ORG, activityIds: many.slice(0, 30) })).data).toEqual([]);
  });

  it('is NOT_FOUND for an unknown organization', async () => {
    await expectCollabError(client.activities.getActivityLogs({ organizationId: 'nope' }), 'NOT_FOUND', /organization nope/);
  });
});

let extra = 0;
function newRecord() {
  extra++;
  return {
    featureType: 'custom' as const,
    actionType: 'x.late',
    actionUser: { userId: 'late' },
    targetEntityId: `late-${extra}`,
    displayMessageTemplate: 'late {{n}}',
    displayMessageTemplateData: { n: extra },
  };
}
