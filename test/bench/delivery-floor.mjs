// The floor of webhook delivery: a minimal deliverer on the same stack as the
// server (Node, the same database driver on the same DATABASE_URL,
// hand-written SQL, node:http with a keep-alive pool per endpoint, the
// Standard Webhooks signature by Node's HMAC as the server's) that gives the
// same answer, doing only what any implementation must do for it:
//
// - claim: due deliveries nobody holds, oldest first, at most CONCURRENCY in
//   flight and PER_ENDPOINT per endpoint (endpoints that are full left out of
//   the candidates), leased by one conditional UPDATE (SKIP LOCKED on
//   PostgreSQL) that counts the try; then the endpoints and messages of what
//   it got in one SELECT;
// - send: the stored body with the application's API key put into
//   `metadata.apiKey`, signed (webhook-id, webhook-timestamp,
//   webhook-signature) and POSTed; the first 4 KiB of the answer read;
// - record: in one transaction per turn of the event loop (as the server
//   does), each delivery's new state, written only under the lease it was
//   tried under (owner and generation), and one attempt row per try.
//
// Left out because the bench never needs them (it stops with an error if it
// meets them): disabled endpoints, rate limits, previous secrets. It learns
// of new deliveries by polling every POLL_MS when it found none (the server is
// woken by its own commits). Secrets come from FLOOR_SECRETS (endpoint ID →
// `whsec_…`, as Get Endpoint Secret returns them; the server opens its sealed
// copies once and caches them), the API key from FLOOR_API_KEY.
//
// Prints `ready` on stdout once it runs; on stdin's end it stops claiming,
// finishes and records the tries in flight, and exits.
import { createHmac, randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { openDatabase } from './floor-database.mjs';

const CONCURRENCY = 64;
const PER_ENDPOINT = 8;
const TIMEOUT_MS = 15_000;
const LEASE_MS = TIMEOUT_MS * 2 + 5_000;
const POLL_MS = 5;
const RESPONSE_BYTES = 4096;
const RETRY_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

const db = await openDatabase(process.env.DATABASE_URL ?? '');
// Signing keys by endpoint: the secret's base64 after `whsec_`.
const secrets = new Map(Object.entries(JSON.parse(process.env.FLOOR_SECRETS ?? '{}')).map(([id, secret]) => [id, Buffer.from(secret.slice('whsec_'.length), 'base64')]));
const apiKey = process.env.FLOOR_API_KEY ?? '';
const owner = `floor_${randomBytes(8).toString('hex')}`;
const lockRows = db.postgres ? ' FOR UPDATE SKIP LOCKED' : '';

const agents = new Map();
const inFlight = new Map(); // endpointId → tries running
let running = 0;
let stopping = false;
let claiming = false;
let claimAgain = false;
let pumpQueued = false;
let pollTimer;
/** Finished tries waiting for the next record transaction. */
let finished = [];
let recording;
let failure;

const fail = (error) => {
  failure ??= error;
  process.stderr.write(`delivery floor: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
};

const list = (values) => values.map(() => '?').join(', ');

async function claim() {
  const free = CONCURRENCY - running;
  if (free <= 0 || stopping) return 0;
  const now = Date.now();
  const full = [...inFlight].filter(([, n]) => n >= PER_ENDPOINT).map(([id]) => id);
  const candidates = await db.query(
    `SELECT "id", "endpointId" FROM "WebhookDelivery"
     WHERE "state" = 'pending' AND "nextAttemptAt" <= ? AND COALESCE("leaseUntil", 0) < ?${full.length > 0 ? ` AND "endpointId" NOT IN (${list(full)})` : ''}
     ORDER BY "nextAttemptAt", "id" LIMIT ?`,
    [now, now, ...full, free * 2],
  );
  const taken = new Map();
  const chosen = [];
  for (const row of candidates) {
    if (chosen.length >= free) break;
    const n = (inFlight.get(row.endpointId) ?? 0) + (taken.get(row.endpointId) ?? 0);
    if (n >= PER_ENDPOINT) continue;
    taken.set(row.endpointId, (taken.get(row.endpointId) ?? 0) + 1);
    chosen.push(row.id);
  }
  if (chosen.length === 0) return 0;
  const leased = await db.query(
    `UPDATE "WebhookDelivery" SET "leaseOwner" = ?, "leaseUntil" = ?, "attempts" = "attempts" + 1, "updatedAt" = ?
     WHERE "id" IN (SELECT "id" FROM "WebhookDelivery"
       WHERE "id" IN (${list(chosen)}) AND "state" = 'pending' AND "nextAttemptAt" <= ? AND COALESCE("leaseUntil", 0) < ?${lockRows})
     RETURNING "id", "endpointId", "messageId", "attempts", "manual", "generation"`,
    [owner, now + LEASE_MS, now, ...chosen, now, now],
  );
  if (leased.length === 0) return 0;
  const targets = await db.query(
    `SELECT d."id", e."url", e."disabled", e."rateLimit", m."body", m."apiKeyId"
     FROM "WebhookDelivery" d JOIN "WebhookEndpoint" e ON e."id" = d."endpointId" JOIN "WebhookMessage" m ON m."id" = d."messageId"
     WHERE d."id" IN (${list(leased.map((row) => row.id))})`,
    leased.map((row) => row.id),
  );
  const byId = new Map(targets.map((target) => [target.id, target]));
  for (const row of leased) {
    const target = byId.get(row.id);
    if (target === undefined) continue; // deleted meanwhile
    if (Boolean(Number(target.disabled)) || target.rateLimit !== null || !secrets.has(row.endpointId)) {
      fail(new Error(`delivery ${row.id}: disabled endpoints, rate limits and unknown endpoints are not part of the floor`));
    }
    inFlight.set(row.endpointId, (inFlight.get(row.endpointId) ?? 0) + 1);
    running += 1;
    void send(row, target);
  }
  return leased.length;
}

/** Claims until the slots are full or nothing is due; polls while nothing is due. */
async function pump() {
  if (claiming) {
    claimAgain = true;
    return;
  }
  claiming = true;
  try {
    do {
      claimAgain = false;
      while (!stopping && running < CONCURRENCY && (await claim()) > 0);
    } while (claimAgain && !stopping);
  } catch (error) {
    fail(error);
  } finally {
    claiming = false;
  }
  // Nothing more was due: look again in POLL_MS (one timer at a time).
  if (!stopping && running < CONCURRENCY && pollTimer === undefined) {
    pollTimer = setTimeout(() => {
      pollTimer = undefined;
      void pump();
    }, POLL_MS);
  }
}

/** One pump for the tries that ended in this turn of the event loop. */
function pumpSoon() {
  if (pumpQueued) return;
  pumpQueued = true;
  setImmediate(() => {
    pumpQueued = false;
    void pump();
  });
}

/** The stored body with the API key in `metadata.apiKey` (the server's withApiKey). */
function withApiKey(body) {
  const keyless = '"metadata":{"apiKey":""';
  const at = body.lastIndexOf(keyless);
  return at < 0 ? body : `${body.slice(0, at)}"metadata":{"apiKey":${JSON.stringify(apiKey)}${body.slice(at + keyless.length)}`;
}

function post(url, headers, payload) {
  return new Promise((resolve) => {
    const target = new URL(url);
    let agent = agents.get(target.host);
    if (agent === undefined) agents.set(target.host, (agent = new Agent({ keepAlive: true, maxSockets: PER_ENDPOINT, maxFreeSockets: PER_ENDPOINT })));
    const req = request(target, { method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': payload.length }, timeout: TIMEOUT_MS }, (res) => {
      const chunks = [];
      let size = 0;
      res.on('data', (chunk) => {
        if (size < RESPONSE_BYTES) chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, response: Buffer.concat(chunks).subarray(0, RESPONSE_BYTES).toString('utf8') }));
      res.on('error', (error) => resolve({ status: null, response: error.message }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (error) => resolve({ status: null, response: error.message }));
    req.end(payload);
  });
}

async function send(row, target) {
  const startAt = Date.now();
  const body = withApiKey(target.body);
  const headers = {
    'user-agent': 'Collab-Backend-Webhooks/1.0',
    'webhook-id': row.messageId,
    'webhook-timestamp': String(Math.floor(startAt / 1000)),
    'webhook-signature': `v1,${createHmac('sha256', secrets.get(row.endpointId)).update(`${row.messageId}.${Math.floor(startAt / 1000)}.${body}`, 'utf8').digest('base64')}`,
  };
  const started = performance.now();
  const answer = await post(target.url, headers, Buffer.from(body, 'utf8'));
  const durationMs = Math.round(performance.now() - started);
  const ok = answer.status !== null && answer.status >= 200 && answer.status < 300;
  const tries = Math.max(Number(row.attempts), 1);
  const now = Date.now();
  const nextAttemptAt = ok || tries > RETRY_MS.length ? null : now + RETRY_MS[tries - 1];
  const state = ok ? 'succeeded' : nextAttemptAt === null ? 'failed' : 'pending';
  await record({ row, apiKeyId: target.apiKeyId, state, nextAttemptAt, status: answer.status, response: answer.response.replaceAll('\u0000', '\uFFFD'), durationMs, at: now });
  running -= 1;
  const left = inFlight.get(row.endpointId) - 1;
  if (left === 0) inFlight.delete(row.endpointId);
  else inFlight.set(row.endpointId, left);
  pumpSoon();
}

/** Queues a finished try for the record transaction of this turn of the event loop. */
function record(item) {
  return new Promise((resolve) => {
    finished.push({ item, resolve });
    if (finished.length === 1 && recording === undefined) setImmediate(writeRecords);
  });
}

async function writeRecords() {
  if (recording !== undefined || finished.length === 0) return;
  const batch = finished;
  finished = [];
  recording = db
    .transaction(async (query) => {
      const groups = new Map();
      for (const { item } of batch) {
        const key = `${item.state} ${item.nextAttemptAt}`;
        if (!groups.has(key)) groups.set(key, []);
        groups.get(key).push(item);
      }
      const settled = new Set();
      for (const items of groups.values()) {
        const { state, nextAttemptAt } = items[0];
        const rows = await query(
          `UPDATE "WebhookDelivery" SET "state" = ?, "manual" = ?, "nextAttemptAt" = ?, "leaseOwner" = NULL, "leaseUntil" = NULL, "updatedAt" = ?
           WHERE "id" IN (${list(items)}) AND (${items.map(() => '("id" = ? AND "leaseOwner" = ? AND "generation" = ?)').join(' OR ')})
           RETURNING "id"`,
          [state, false, nextAttemptAt, Date.now(), ...items.map((item) => item.row.id), ...items.flatMap((item) => [item.row.id, owner, Number(item.row.generation)])],
        );
        for (const row of rows) settled.add(row.id);
      }
      // Resent or claimed again meanwhile: the bench does neither, so every try is expected to settle.
      const attempts = batch.map(({ item }) => item).filter((item) => settled.has(item.row.id));
      if (attempts.length > 0) {
        await query(
          `INSERT INTO "WebhookAttempt" ("id", "apiKeyId", "deliveryId", "endpointId", "messageId", "status", "responseStatusCode", "response", "durationMs", "trigger", "nextAttemptAt", "createdAt")
           VALUES ${attempts.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
          attempts.flatMap((item) => [
            `atmpt_${randomBytes(12).toString('hex')}`,
            item.apiKeyId,
            item.row.id,
            item.row.endpointId,
            item.row.messageId,
            item.state === 'succeeded' ? 'succeeded' : 'failed',
            item.status,
            item.response,
            item.durationMs,
            Boolean(Number(item.row.manual)) ? 'manual' : 'scheduled',
            item.nextAttemptAt,
            item.at,
          ]),
        );
      }
    })
    .then(
      () => {
        for (const { resolve } of batch) resolve();
      },
      fail,
    )
    .finally(() => {
      recording = undefined;
      if (finished.length > 0) setImmediate(writeRecords);
    });
}

async function stop() {
  stopping = true;
  clearTimeout(pollTimer);
  while (running > 0 || recording !== undefined || finished.length > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  for (const agent of agents.values()) agent.destroy();
  await db.close();
  process.exit(failure === undefined ? 0 : 1);
}

process.stdin.on('end', () => void stop());
process.stdin.on('error', () => void stop());
process.stdin.resume();
process.on('SIGTERM', () => void stop());
process.stdout.write('ready\n');
void pump();
