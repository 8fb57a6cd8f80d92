/**
 * The benchmark scenarios `npm run bench` runs, in order, against one server
 * with one seeded workspace. To add one, append an entry to `scenarios`:
 * optional `setup()` seeds what it needs (through `ctx.cli` or `ctx.post`),
 * `request()` returns the one request autocannon repeats. Keep state that
 * `setup()` creates in variables closed over by the entry (see README.md).
 */
import { readFileSync } from 'node:fs';
import { upsertMany } from '../../server/db/bulk.js';
import { openDatabase } from '../../server/db/client.js';
import { agentRunScenario } from './agents.js';
import { workflowBulkScenario } from './workflows.js';
import { crdtGetScenario, crdtScenarios } from './crdt.js';
import { floorScenarios } from './floors.js';
import { memoryScenarios } from './memory.js';
import { pagingScenarios } from './paging.js';
import { sizingScenarios } from './sizing.js';
import { webhookScenarios } from './webhooks.js';

export interface WorkspaceCredentials {
  workspaceId: string;
  workspaceAuthToken: string;
  apiKey: string;
  authToken: string;
}

export interface BenchContext {
  /** The server under test, e.g. `http://127.0.0.1:41234` (no trailing slash). */
  baseUrl: string;
  /** Its process ID (for its RSS in /proc). */
  serverPid: number;
  /** The operator CLI (`node dist/server/cli.js ...args`) against the server's database; parsed JSON stdout. */
  cli<T = any>(args: string[]): Promise<T>;
  /** One POST to the server, for seeding through HTTP in `setup()`; throws on a non-2xx status. */
  post<T = any>(path: string, body: unknown, headers?: Record<string, string>): Promise<T>;
  /** The workspace seeded before the run (`workspace create`). */
  workspace: WorkspaceCredentials;
  /** The server's DATABASE_URL, for seeding large data sets with bulk SQL instead of thousands of requests. */
  databaseUrl: string;
  /** Another process of the built server on the same database, with `env` added to the server's; stopped at the end of the run at the latest. */
  startServer(env?: NodeJS.ProcessEnv): Promise<ExtraServer>;
  /** A Redis for scenarios that run several server processes (BENCH_REDIS_URL, else TEST_REDIS_URL); undefined when neither is set. */
  redisUrl: string | undefined;
}

export interface ExtraServer {
  url: string;
  pid: number;
  /** SIGTERM, and resolves when the process exited. */
  stop(): Promise<void>;
}

export interface BenchRequest {
  path: string;
  /** Defaults to POST. */
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers: Record<string, string>;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
  /** Instead of `body`: bodies sent in turn, each connection cycling through them from the first (the probe sends the last). */
  bodies?: unknown[];
}

interface ScenarioBase {
  name: string;
  setup?(ctx: BenchContext): Promise<void>;
}

/** Measured with autocannon: requests/s, latency, and the ratio to the bare baseline. */
export interface RequestScenario extends ScenarioBase {
  /** Concurrent connections for this scenario; default BENCH_CONNECTIONS. Bulk writes use 1: their latency is the figure. */
  connections?: number;
  /**
   * Also bench test/bench/floor-server.mjs on the same request: its answer is first checked equal to
   * the server's, and the row reports server req/s ÷ floor req/s (see README.md, "Floors").
   */
  floor?: boolean;
  /**
   * For a write with a floor: paths of the answer whose values each side generates itself (IDs, the
   * time of the write), compared by type only. Dotted, `*` for any one key or array index, e.g.
   * `result.data.*.annotationId`. Everything else must still be equal.
   */
  compareIgnoring?: string[];
  request(ctx: BenchContext): BenchRequest;
}

/** What a self-measured scenario reports: named figures, or why it did not run. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
}
export type Measured = { figures: Figure[]; notes?: string[] } | { skipped: string };

/** Measures itself (latencies it observes, RSS it reads): for what one repeated request cannot show. */
export interface MeasuredScenario extends ScenarioBase {
  measure(ctx: BenchContext): Promise<Measured>;
}

export type Scenario = RequestScenario | MeasuredScenario;

/** JSON content type plus the workspace's service credentials. */
export function serviceHeaders(workspace: Pick<WorkspaceCredentials, 'apiKey' | 'authToken'>): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-service-api-key': workspace.apiKey,
    'x-service-auth-token': workspace.authToken,
  };
}

export const scenarios: Scenario[] = [
  {
    name: 'Get Activity Config',
    request: (ctx) => ({
      path: '/v2/workspace/activityconfig/get',
      headers: serviceHeaders(ctx.workspace),
      body: { data: {} },
    }),
  },
];

/**
 * The resident memory of a server process at rest: a fresh process of the
 * built server on the bench database, before any API request, 2 s and 5 s
 * after it began answering HTTP (how much of that is file-backed: the node
 * binary and native modules, shared with other processes and not the
 * server's to reduce), then 22 s and 45 s after. V8 keeps the young
 * generation at the size a busy start-up grew it to (32 MiB) until its
 * memory reducer runs, which waits for the allocation rate since start to
 * fall: 15-45 s after start on the 2-core machine.
 */
scenarios.push({
  name: 'Idle RSS after start',
  async measure(ctx) {
    const server = await ctx.startServer();
    const started = performance.now();
    const kib = (key: string) => {
      const status = readFileSync(`/proc/${server.pid}/status`, 'utf8');
      return Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
    };
    const mib = (value: number) => Math.round(value / 102.4) / 10;
    const at = (seconds: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, started + seconds * 1000 - performance.now())));
    try {
      await at(2);
      const figures = [{ name: 'RSS 2 s after start', value: mib(kib('VmRSS')), unit: 'MiB' }];
      await at(5);
      figures.push(
        { name: 'RSS 5 s after start', value: mib(kib('VmRSS')), unit: 'MiB' },
        { name: '  of it file-backed (node, native modules)', value: mib(kib('RssFile')), unit: 'MiB' },
        { name: 'peak RSS while starting', value: mib(kib('VmHWM')), unit: 'MiB' },
      );
      await at(22);
      figures.push({ name: 'RSS 22 s after start', value: mib(kib('VmRSS')), unit: 'MiB' });
      await at(45);
      figures.push({ name: 'RSS 45 s after start', value: mib(kib('VmRSS')), unit: 'MiB' });
      return { figures };
    } finally {
      await server.stop();
    }
  },
});

/**
 * Get Permissions for 10 users x 30 documents in one organization: 10 users at
 * organization level (every third a viewer); documents 0–9 in folder
 * bench-perm-f1 (organizationPrivate), 10–19 in bench-perm-f2 (public), 20–24
 * at the top (organizationPrivate), 25–29 at the top and restricted, with
 * document-level membership for users 0–2 (so the rest are denied there).
 */
const PERM_ORG = 'bench-perm-org';
const permUserIds = Array.from({ length: 10 }, (_, i) => `bench-perm-u${i}`);
const permDocumentIds = Array.from({ length: 30 }, (_, i) => `bench-perm-d${i}`);
scenarios.push({
  name: 'Get Permissions 10 users x 30 documents',
  floor: true,
  async setup(ctx) {
    const headers = serviceHeaders(ctx.workspace);
    await ctx.post('/v2/organizations/add', { data: { organizationId: PERM_ORG } }, headers);
    await ctx.post('/v2/organizations/folders/add', { data: { organizationId: PERM_ORG, folderId: 'bench-perm-f1' } }, headers);
    await ctx.post('/v2/organizations/folders/add', { data: { organizationId: PERM_ORG, folderId: 'bench-perm-f2', accessType: 'public' } }, headers);
    await ctx.post(
      '/v2/users/add',
      {
        data: {
          organizationId: PERM_ORG,
          users: permUserIds.map((userId, i) => ({ userId, name: `Bench ${i}`, email: `${userId}@example.com`, accessRole: i % 3 === 0 ? 'viewer' : 'editor' })),
        },
      },
      headers,
    );
    for (const [i, documentId] of permDocumentIds.entries()) {
      const placement = i < 10 ? { folderId: 'bench-perm-f1' } : i < 20 ? { folderId: 'bench-perm-f2' } : i < 25 ? {} : { accessType: 'restricted' };
      await ctx.post('/v2/organizations/documents/add', { data: { organizationId: PERM_ORG, documentId, ...placement } }, headers);
      if (i >= 25) {
        await ctx.post(
          '/v2/users/add',
          { data: { organizationId: PERM_ORG, documentId, users: permUserIds.slice(0, 3).map((userId) => ({ userId, accessRole: 'editor' })) } },
          headers,
        );
      }
    }
  },
  request: (ctx) => ({
    path: '/v2/auth/permissions/get',
    headers: serviceHeaders(ctx.workspace),
    body: { data: { organizationId: PERM_ORG, userIds: permUserIds, documentIds: permDocumentIds } },
  }),
});

/**
 * Add Users with 1,000 users in one request, one connection: the latency of
 * one bulk write (the target: well under 300 ms on SQLite and
 * PostgreSQL). Every request upserts the same users, so after the first one
 * it measures the update path, which costs the same statements as inserts.
 */
const BULK_ORG = 'bench-bulk-org';
scenarios.push({
  name: 'Add Users 1000 users',
  connections: 1,
  request: (ctx) => ({
    path: '/v2/users/add',
    headers: serviceHeaders(ctx.workspace),
    body: {
      data: {
        organizationId: BULK_ORG,
        users: Array.from({ length: 1000 }, (_, i) => ({ userId: `bench-bulk-u${i}`, name: `Bulk User ${i}`, email: `bulk${i}@example.com`, accessRole: i % 2 ? 'viewer' : 'editor' })),
      },
    },
  }),
});

/**
 * A comment with a mention: each request opens a new thread on one document
 * whose first comment mentions a member (a thread holds at most 1,000
 * comments, so adding to one thread could not repeat for a whole run). The
 * write, its read mark, the mention and the comment_annotation.add event in
 * one transaction; the notification fan-out benchmark comes with the
 * notification projection.
 */
const COMMENT_ORG = 'bench-comment-org';
scenarios.push({
  name: 'Add Comment with a mention',
  async setup(ctx) {
    const users = [0, 1].map((i) => ({ userId: `bench-comment-u${i}`, name: `Commenter ${i}`, email: `commenter${i}@example.com` }));
    await ctx.post('/v2/users/add', { data: { organizationId: COMMENT_ORG, documentId: 'bench-comment-doc', createDocument: true, users } }, serviceHeaders(ctx.workspace));
  },
  request: (ctx) => ({
    path: '/v2/commentannotations/add',
    headers: serviceHeaders(ctx.workspace),
    body: {
      data: {
        organizationId: COMMENT_ORG,
        documentId: 'bench-comment-doc',
        commentAnnotations: [
          { from: { userId: 'bench-comment-u0' }, commentData: [{ commentText: 'Could you look at this?', taggedUserContacts: [{ userId: 'bench-comment-u1' }] }] },
        ],
      },
    },
  }),
});

/**
 * The notification fan-out: each request opens a thread whose first comment
 * mentions 20 members of the document, each with a notification config (half
 * `ALL` on the document, half `MINE` as their organization default), so every
 * request writes the thread, 20 mentions, the event, one notification and 20
 * recipient rows in one transaction, after reading the 20 users' access and
 * configs.
 */
const FANOUT_ORG = 'bench-fanout-org';
const FANOUT_DOC = 'bench-fanout-doc';
const fanoutUsers = Array.from({ length: 20 }, (_, i) => `bench-fanout-u${i}`);
scenarios.push({
  name: 'Add Comment mentioning 20 users with configs',
  // Each side writes its own thread: the IDs it generated and the time it wrote differ.
  floor: true,
  compareIgnoring: ['result.data.*.annotationId', 'result.data.*.createdAt', 'result.data.*.lastUpdated', 'result.data.*.comments.*.commentId', 'result.data.*.comments.*.createdAt', 'result.data.*.comments.*.lastUpdated'],
  async setup(ctx) {
    const headers = serviceHeaders(ctx.workspace);
    const users = ['bench-fanout-author', ...fanoutUsers].map((userId, i) => ({ userId, name: `Fan-out ${i}`, email: `${userId}@example.com` }));
    await ctx.post('/v2/users/add', { data: { organizationId: FANOUT_ORG, documentId: FANOUT_DOC, createDocument: true, users } }, headers);
    const all = fanoutUsers.filter((_, i) => i % 2 === 0);
    const mine = fanoutUsers.filter((_, i) => i % 2 === 1);
    await ctx.post('/v2/notifications/config/set', { data: { organizationId: FANOUT_ORG, documentIds: [FANOUT_DOC], userIds: all, config: { inbox: 'ALL', email: 'ALL' } } }, headers);
    await ctx.post('/v2/notifications/config/set', { data: { organizationId: FANOUT_ORG, userIds: mine, config: { inbox: 'MINE', email: 'NONE' } } }, headers);
  },
  request: (ctx) => ({
    path: '/v2/commentannotations/add',
    headers: serviceHeaders(ctx.workspace),
    body: {
      data: {
        organizationId: FANOUT_ORG,
        documentId: FANOUT_DOC,
        commentAnnotations: [
          {
            from: { userId: 'bench-fanout-author' },
            commentData: [{ commentText: 'Everyone, please review.', taggedUserContacts: fanoutUsers.map((userId) => ({ userId })) }],
          },
        ],
      },
    },
  }),
});

/**
 * Get Notifications for one user with 100,000 notifications in one
 * organization (10 documents; the user received every one, a second user
 * every other one), 100 per page: page 1 and page 50 (reached by following 49
 * tokens in setup). Keyset paging should make the two cost the same. The rows
 * are written with bulk SQL straight into the server's database: 100,000
 * HTTP calls would take minutes.
 */
const NTF_ORG = 'bench-ntf-org';
const NTF_USER = 'bench-ntf-u0';
const NTF_TOTAL = 100_000;
const NTF_PAGE_SIZE = 100;
let notificationsSeeded: Promise<void> | undefined;
let page50Token = '';

async function seedNotifications(ctx: BenchContext): Promise<void> {
  const headers = serviceHeaders(ctx.workspace);
  const documentIds = Array.from({ length: 10 }, (_, i) => `bench-ntf-d${i}`);
  for (const documentId of documentIds) await ctx.post('/v2/organizations/documents/add', { data: { organizationId: NTF_ORG, documentId } }, headers);
  await ctx.post('/v2/users/add', { data: { organizationId: NTF_ORG, users: [0, 1].map((i) => ({ userId: `bench-ntf-u${i}`, name: `Reader ${i}`, email: `reader${i}@example.com` })) } }, headers);
  const apiKeyId = (await ctx.cli(['workspace', 'get', '--api-key', ctx.workspace.apiKey])).apiKey.id as string;

  const database = await openDatabase(ctx.databaseUrl);
  try {
    const start = Date.UTC(2026, 0, 1);
    const actionUser = { userId: 'bench-ntf-actor', name: 'Actor', email: 'actor@example.com' };
    const BATCH = 5_000;
    for (let from = 0; from < NTF_TOTAL; from += BATCH) {
      const notifications = [];
      const recipients = [];
      for (let i = from; i < Math.min(from + BATCH, NTF_TOTAL); i++) {
        const id = `ntf_bench${String(i).padStart(8, '0')}`;
        const documentId = documentIds[i % documentIds.length]!;
        const timestamp = start + i * 1000;
        const annotation = { annotationId: `a${i}`, organizationId: NTF_ORG, documentId, status: 'open', priority: null, assignedTo: null, customList: [], context: null, from: actionUser, comments: [], createdAt: timestamp, lastUpdated: timestamp };
        notifications.push({
          apiKeyId, id, organizationId: NTF_ORG, documentId, locationId: null, source: 'comment', sourceData: JSON.stringify(annotation), eventId: null,
          actionUserId: actionUser.userId, actionUser: JSON.stringify(actionUser), headlineTemplate: '{actionUser} commented',
          headlineData: JSON.stringify({ actionType: 'comment.add', actionUser }), bodyMessage: `comment ${i}`, timestamp,
        });
        const base = { apiKeyId, notificationId: id, organizationId: NTF_ORG, documentId, locationId: null, timestamp, readAt: null };
        recipients.push({ ...base, userId: NTF_USER, userKey: 'reader0@example.com' });
        if (i % 2 === 0) recipients.push({ ...base, userId: 'bench-ntf-u1', userKey: 'reader1@example.com' });
      }
      await upsertMany(database.db, 'Notification', notifications, { key: ['apiKeyId', 'id'], update: [] });
      await upsertMany(database.db, 'NotificationRecipient', recipients, { key: ['apiKeyId', 'notificationId', 'userId'], update: [] });
    }
    if (database.provider === 'postgresql') await database.db.$executeRawUnsafe('ANALYZE "Notification"; ANALYZE "NotificationRecipient"');
    else await database.db.$executeRawUnsafe('ANALYZE');
  } finally {
    await database.close();
  }
  // The SQLite driver is synchronous: while it wrote, the server closed our idle keep-alive
  // connection (after HTTP_KEEP_ALIVE_TIMEOUT_MS) unseen. One turn of the event loop lets
  // fetch see that close instead of sending the next request down the dead socket.
  await new Promise((resolve) => setTimeout(resolve, 50));

  let pageToken: string | undefined;
  for (let page = 1; page < 50; page++) {
    const body: { result: { pageToken: string | null } } = await ctx.post(
      '/v2/notifications/get',
      { data: { organizationId: NTF_ORG, userId: NTF_USER, pageSize: NTF_PAGE_SIZE, ...(pageToken ? { pageToken } : {}) } },
      headers,
    );
    if (body.result.pageToken === null) throw new Error(`notifications ended at page ${page}`);
    pageToken = body.result.pageToken;
  }
  page50Token = pageToken!;
}

for (const page of [1, 50] as const) {
  scenarios.push({
    name: `Get Notifications page ${page}`,
    // The floor reads the cursor of the server's page-50 token (see floor-server.mjs).
    floor: true,
    async setup(ctx) {
      notificationsSeeded ??= seedNotifications(ctx);
      await notificationsSeeded;
    },
    request: (ctx) => ({
      path: '/v2/notifications/get',
      headers: serviceHeaders(ctx.workspace),
      body: { data: { organizationId: NTF_ORG, userId: NTF_USER, pageSize: NTF_PAGE_SIZE, ...(page === 50 ? { pageToken: page50Token } : {}) } },
    }),
  });
}

// Data-bound reads against their floors (floors.ts).
scenarios.push(...floorScenarios);

/** Get Documents, Get Users and Get Activity Logs on 1,000,000 rows: page 1 against the page at row 900,000 (paging.ts). */
scenarios.push(...pagingScenarios);

/** Get CRDT Data of a document of ~4 KB of text (crdt.ts). */
scenarios.push(crdtGetScenario);

/** Suggest Decision over 50,000 judgments in one workspace, and the rebuild of its index after a change (memory.ts). */
scenarios.push(...memoryScenarios);

/** Collaborative documents: REST Update of a large text, fan-out to 200 clients, memory of 1,000 loaded documents (crdt.ts). */
scenarios.push(...crdtScenarios);

/** An agent run over 20 local pages with a fake provider: wall time and the running process's RSS (agents.ts). */
scenarios.push(agentRunScenario);
scenarios.push(workflowBulkScenario);

/** Webhook delivery to 1 and to 50 local endpoints: sustained deliveries/s and the lag from event to arrival (webhooks.ts). After the others but sizing: they enable webhooks for the workspace while they run. */
scenarios.push(...webhookScenarios);

/** Sizing of one process for the operator guide: RSS, descriptors and connections idle and under load, requests/s it sustains, disk growth per million events (sizing.ts). Last: it writes tens of thousands of events and leaves activity logs on. */
scenarios.push(...sizingScenarios);

/** A numeric knob of the bench from the environment: its default when unset, an error below `min`. */
export function numberFromEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number >= ${min} (got "${raw}")`);
  return value;
}
