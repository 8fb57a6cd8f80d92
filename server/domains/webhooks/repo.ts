import { providerOfClient, type Db } from '../../db/client.js';
import { idMap } from '../../lib/id-map.js';
import { keysetAfter, type Cursor } from '../../lib/page-token.js';

/**
 * Webhook endpoints, messages, deliveries and attempts: the only code of the
 * webhooks domain that talks to the database. Reads are scoped by the
 * application (apiKeyId) or by an endpoint the caller found under it first;
 * the dispatcher's queries span every application, as one process delivers
 * for all of them. Times leave as Unix milliseconds and JSON columns parsed:
 * how they are stored (BigInt, text) stays here.
 */

export type DeliveryState = 'pending' | 'succeeded' | 'failed' | 'canceled';

export interface EndpointRecord {
  id: string;
  url: string;
  description: string;
  /** Null: every event type. */
  filterTypes: string[] | null;
  /** Null: every channel. */
  channels: string[] | null;
  disabled: boolean;
  rateLimit: number | null;
  uid: string | null;
  /** Caller-chosen keys: a null-prototype map. */
  metadata: Record<string, string>;
  createdAt: number;
  updatedAt: number;
}

export interface NewEndpoint {
  id: string;
  apiKeyId: string;
  url: string;
  description: string;
  filterTypes: readonly string[] | null;
  channels: readonly string[] | null;
  disabled: boolean;
  rateLimit: number | null;
  uid: string | null;
  metadata: Record<string, string>;
  secretSealed: string;
  createdAt: number;
}

/** Fields to change; an absent one is left as it is. */
export type EndpointPatch = Partial<Pick<NewEndpoint, 'url' | 'description' | 'filterTypes' | 'channels' | 'disabled' | 'rateLimit' | 'uid' | 'metadata'>>;

/** What the fan-out needs of an endpoint. */
export interface EndpointFilter {
  id: string;
  filterTypes: string[] | null;
  channels: string[] | null;
}

export interface NewMessage {
  id: string;
  apiKeyId: string;
  eventType: string;
  eventId: string | null;
  organizationId: string | null;
  documentId: string | null;
  /** The exact bytes sent (without the API key: see withApiKey). */
  body: string;
  createdAt: number;
}

/** A delivery as Get Webhook Messages lists it, with its message. */
export interface DeliveryRecord {
  id: string;
  messageId: string;
  endpointId: string;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: number | null;
  createdAt: number;
  message: { eventType: string; body: string; createdAt: number };
}

export interface AttemptRecord {
  id: string;
  messageId: string;
  endpointId: string;
  status: 'succeeded' | 'failed';
  responseStatusCode: number | null;
  response: string;
  durationMs: number;
  trigger: 'scheduled' | 'manual';
  nextAttemptAt: number | null;
  createdAt: number;
}

export type NewAttempt = AttemptRecord & { apiKeyId: string; deliveryId: string };

/** A delivery leased to this process. */
export interface LeasedDelivery {
  id: string;
  endpointId: string;
  messageId: string;
  /** Tries so far, this one included (counted when claimed, so a try that never gets recorded still counts). */
  attempts: number;
  manual: boolean;
  generation: number;
  /** This claim's lease token. */
  leaseOwner: string;
}

/** What a try needs of its endpoint and message. */
export interface DeliveryTarget {
  endpoint: {
    url: string;
    disabled: boolean;
    rateLimit: number | null;
    secretSealed: string;
    previousSecretSealed: string | null;
    previousSecretUntil: number | null;
  };
  message: { body: string; eventType: string; apiKeyId: string; organizationId: string | null; documentId: string | null; createdAt: number };
}

/** The lease a delivery was claimed under: a write conditioned on it does nothing once the delivery is resent or claimed again. */
type Lease = Pick<LeasedDelivery, 'id' | 'leaseOwner' | 'generation'>;

/** A de-duplicated list, stored as JSON; null stays null (all). */
const listColumn = (values: readonly string[] | null) => (values === null ? null : JSON.stringify([...new Set(values)]));
const listOf = (column: string | null) => (column === null ? null : (JSON.parse(column) as string[]));
const msOf = (value: number | bigint | null) => (value === null ? null : Number(value));

function toEndpoint(row: {
  id: string;
  url: string;
  description: string;
  filterTypes: string | null;
  channels: string | null;
  disabled: boolean;
  rateLimit: number | null;
  uid: string | null;
  metadata: string;
  createdAt: bigint;
  updatedAt: bigint;
}): EndpointRecord {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    filterTypes: listOf(row.filterTypes),
    channels: listOf(row.channels),
    disabled: row.disabled,
    rateLimit: row.rateLimit,
    uid: row.uid,
    metadata: Object.assign(idMap<string>(), JSON.parse(row.metadata) as Record<string, string>),
    createdAt: Number(row.createdAt),
    updatedAt: Number(row.updatedAt),
  };
}

/** The columns an endpoint record is read from: never its secrets. */
const ENDPOINT_FIELDS = {
  id: true,
  url: true,
  description: true,
  filterTypes: true,
  channels: true,
  disabled: true,
  rateLimit: true,
  uid: true,
  metadata: true,
  createdAt: true,
  updatedAt: true,
} as const;

/** Newest first, by (createdAt, id) below the cursor. */
const before = (after: Cursor | undefined) => keysetAfter(after, BigInt, { order: 'desc' });
const newestFirst = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];

export function createWebhooksRepo(db: Db) {
  const postgres = providerOfClient(db) === 'postgresql';
  /** Placeholders of a raw statement in the database's dialect. */
  const sql = () => {
    const params: unknown[] = [];
    const bind = (value: unknown) => {
      params.push(value);
      return postgres ? `$${params.length}` : '?';
    };
    return { params, bind };
  };

  return {
    // ── Endpoints ──────────────────────────────────────────────────────────

    async findEndpoint(apiKeyId: string, endpointId: string): Promise<EndpointRecord | null> {
      const row = await db.webhookEndpoint.findFirst({ where: { id: endpointId, apiKeyId }, select: ENDPOINT_FIELDS });
      return row === null ? null : toEndpoint(row);
    },

    /** The endpoint's sealed signing secret, or null when the application has no such endpoint. */
    async sealedSecretOf(apiKeyId: string, endpointId: string): Promise<string | null> {
      const row = await db.webhookEndpoint.findFirst({ where: { id: endpointId, apiKeyId }, select: { secretSealed: true } });
      return row?.secretSealed ?? null;
    },

    async createEndpoint(input: NewEndpoint): Promise<EndpointRecord> {
      const at = BigInt(input.createdAt);
      const row = await db.webhookEndpoint.create({
        data: {
          id: input.id,
          apiKeyId: input.apiKeyId,
          url: input.url,
          description: input.description,
          filterTypes: listColumn(input.filterTypes),
          channels: listColumn(input.channels),
          disabled: input.disabled,
          rateLimit: input.rateLimit,
          uid: input.uid,
          metadata: JSON.stringify(input.metadata),
          secretSealed: input.secretSealed,
          createdAt: at,
          updatedAt: at,
        },
        select: ENDPOINT_FIELDS,
      });
      return toEndpoint(row);
    },

    /** The application's endpoints in (createdAt, id) order after `after`. */
    async listEndpoints(apiKeyId: string, after: Cursor | undefined, take: number): Promise<EndpointRecord[]> {
      const rows = await db.webhookEndpoint.findMany({
        where: { apiKeyId, ...keysetAfter(after, BigInt) },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        take,
        select: ENDPOINT_FIELDS,
      });
      return rows.map(toEndpoint);
    },

    /** Changes an endpoint found under its application (findEndpoint). */
    async updateEndpoint(endpointId: string, patch: EndpointPatch, updatedAt: number): Promise<EndpointRecord> {
      const row = await db.webhookEndpoint.update({
        where: { id: endpointId },
        data: {
          ...(patch.url === undefined ? {} : { url: patch.url }),
          ...(patch.description === undefined ? {} : { description: patch.description }),
          ...(patch.filterTypes === undefined ? {} : { filterTypes: listColumn(patch.filterTypes) }),
          ...(patch.channels === undefined ? {} : { channels: listColumn(patch.channels) }),
          ...(patch.disabled === undefined ? {} : { disabled: patch.disabled }),
          ...(patch.rateLimit === undefined ? {} : { rateLimit: patch.rateLimit }),
          ...(patch.uid === undefined ? {} : { uid: patch.uid }),
          ...(patch.metadata === undefined ? {} : { metadata: JSON.stringify(patch.metadata) }),
          updatedAt: BigInt(updatedAt),
        },
        select: ENDPOINT_FIELDS,
      });
      return toEndpoint(row);
    },

    /** Whether the application had the endpoint (its deliveries and attempts go with it). */
    async deleteEndpoint(apiKeyId: string, endpointId: string): Promise<boolean> {
      const { count } = await db.webhookEndpoint.deleteMany({ where: { id: endpointId, apiKeyId } });
      return count > 0;
    },

    /** Compare-and-set of the signing secret: false when it is no longer `expected` (another rotation came first). */
    async replaceSecret(endpointId: string, change: { expected: string; next: string; previousUntil: number; at: number }): Promise<boolean> {
      const { count } = await db.webhookEndpoint.updateMany({
        where: { id: endpointId, secretSealed: change.expected },
        data: { secretSealed: change.next, previousSecretSealed: change.expected, previousSecretUntil: BigInt(change.previousUntil), updatedAt: BigInt(change.at) },
      });
      return count === 1;
    },

    /** The application's enabled endpoints, as the fan-out matches them. */
    async enabledEndpointFilters(apiKeyId: string): Promise<EndpointFilter[]> {
      const rows = await db.webhookEndpoint.findMany({ where: { apiKeyId, disabled: false }, select: { id: true, filterTypes: true, channels: true } });
      return rows.map((row) => ({ id: row.id, filterTypes: listOf(row.filterTypes), channels: listOf(row.channels) }));
    },

    // ── Messages ───────────────────────────────────────────────────────────

    async createMessage(input: NewMessage): Promise<void> {
      await db.webhookMessage.create({ data: { ...input, createdAt: BigInt(input.createdAt) } });
    },

    /** One pending delivery per endpoint, due at `now`. */
    async createDeliveries(apiKeyId: string, messageId: string, deliveries: readonly { id: string; endpointId: string }[], now: number): Promise<void> {
      const at = BigInt(now);
      await db.webhookDelivery.createMany({
        data: deliveries.map(({ id, endpointId }) => ({ id, apiKeyId, messageId, endpointId, state: 'pending', nextAttemptAt: at, createdAt: at, updatedAt: at })),
      });
    },

    /** A document's messages in ID order after `after` (ID and body), for moving them. */
    messagesOfDocument: (document: { apiKeyId: string; organizationId: string; documentId: string }, after: string, take: number) =>
      db.webhookMessage.findMany({
        where: { ...document, id: { gt: after } },
        orderBy: { id: 'asc' },
        take,
        select: { id: true, body: true },
      }),

    async moveMessage(messageId: string, documentId: string, body: string): Promise<void> {
      await db.webhookMessage.update({ where: { id: messageId }, data: { documentId, body } });
    },

    /** The application's messages in ID order after `after` whose body contains `text` (all when undefined). */
    messagesContaining: (apiKeyId: string, text: string | undefined, after: string, take: number) =>
      db.webhookMessage.findMany({
        where: { apiKeyId, id: { gt: after }, ...(text === undefined ? {} : { body: { contains: text } }) },
        orderBy: { id: 'asc' },
        take,
        select: { id: true, body: true },
      }),

    /** Deletes messages with their deliveries and attempts. */
    async deleteMessages(where: { apiKeyId: string; organizationId?: string; documentIds?: readonly string[]; ids?: readonly string[] }): Promise<void> {
      await db.webhookMessage.deleteMany({
        where: {
          apiKeyId: where.apiKeyId,
          ...(where.organizationId === undefined ? {} : { organizationId: where.organizationId }),
          ...(where.documentIds === undefined ? {} : { documentId: { in: [...where.documentIds] } }),
          ...(where.ids === undefined ? {} : { id: { in: [...where.ids] } }),
        },
      });
    },

    // ── History ────────────────────────────────────────────────────────────

    /** An endpoint's deliveries, newest first below `after`. */
    async deliveriesOf(endpointId: string, state: DeliveryState | undefined, after: Cursor | undefined, take: number): Promise<DeliveryRecord[]> {
      const rows = await db.webhookDelivery.findMany({
        where: { endpointId, ...(state === undefined ? {} : { state }), ...before(after) },
        orderBy: newestFirst,
        take,
        include: { message: { select: { eventType: true, body: true, createdAt: true } } },
      });
      return rows.map((row) => ({
        id: row.id,
        messageId: row.messageId,
        endpointId: row.endpointId,
        state: row.state as DeliveryState,
        attempts: row.attempts,
        nextAttemptAt: msOf(row.nextAttemptAt),
        createdAt: Number(row.createdAt),
        message: { eventType: row.message.eventType, body: row.message.body, createdAt: Number(row.message.createdAt) },
      }));
    },

    /** An endpoint's tries, newest first below `after`. */
    async attemptsOf(endpointId: string, messageId: string | undefined, after: Cursor | undefined, take: number): Promise<AttemptRecord[]> {
      const rows = await db.webhookAttempt.findMany({
        where: { endpointId, ...(messageId === undefined ? {} : { messageId }), ...before(after) },
        orderBy: newestFirst,
        take,
      });
      return rows.map((row) => ({
        id: row.id,
        messageId: row.messageId,
        endpointId: row.endpointId,
        status: row.status as AttemptRecord['status'],
        responseStatusCode: row.responseStatusCode,
        response: row.response,
        durationMs: row.durationMs,
        trigger: row.trigger as AttemptRecord['trigger'],
        nextAttemptAt: msOf(row.nextAttemptAt),
        createdAt: Number(row.createdAt),
      }));
    },

    /** A fresh schedule from `now` for a message to an endpoint; whether it was ever sent there. */
    async resend(endpointId: string, messageId: string, now: number): Promise<boolean> {
      const at = BigInt(now);
      const { count } = await db.webhookDelivery.updateMany({
        where: { endpointId, messageId },
        // A try in flight keeps its lease (no second copy runs beside it); the new generation keeps it from overwriting this schedule.
        data: { state: 'pending', attempts: 0, manual: true, generation: { increment: 1 }, nextAttemptAt: at, updatedAt: at },
      });
      return count > 0;
    },

    // ── Dispatch ───────────────────────────────────────────────────────────

    /**
     * Due deliveries nobody holds, oldest first from the (state,
     * nextAttemptAt) index, leaving out `excluded` endpoints. Only
     * candidates: leaseDue decides.
     */
    dueCandidates(now: number, excluded: ReadonlySet<string>, limit: number): Promise<{ id: string; endpointId: string }[]> {
      const q = sql();
      return db.$queryRawUnsafe<{ id: string; endpointId: string }[]>(
        `SELECT "id", "endpointId" FROM "WebhookDelivery"
         WHERE "state" = 'pending' AND "nextAttemptAt" <= ${q.bind(now)} AND COALESCE("leaseUntil", 0) < ${q.bind(now)}
         ${excluded.size > 0 ? `AND "endpointId" NOT IN (${[...excluded].map(q.bind).join(', ')})` : ''}
         ORDER BY "nextAttemptAt", "id" LIMIT ${q.bind(limit)}`,
        ...q.params,
      );
    },

    /**
     * Leases those of `ids` still due and free to `owner` until `leaseUntil`,
     * counting a try, in one conditional UPDATE: of two processes racing for a
     * delivery one gets it and the other nothing (SKIP LOCKED on PostgreSQL:
     * they never wait on each other's rows).
     */
    async leaseDue(ids: readonly string[], owner: string, now: number, leaseUntil: number): Promise<LeasedDelivery[]> {
      const u = sql();
      const rows = await db.$queryRawUnsafe<
        { id: string; endpointId: string; messageId: string; attempts: number | bigint; manual: boolean | number; generation: number | bigint; leaseOwner: string }[]
      >(
        `UPDATE "WebhookDelivery" SET "leaseOwner" = ${u.bind(owner)}, "leaseUntil" = ${u.bind(leaseUntil)}, "attempts" = "attempts" + 1, "updatedAt" = ${u.bind(now)}
         WHERE "id" IN (SELECT "id" FROM "WebhookDelivery"
           WHERE "id" IN (${ids.map(u.bind).join(', ')}) AND "state" = 'pending' AND "nextAttemptAt" <= ${u.bind(now)} AND COALESCE("leaseUntil", 0) < ${u.bind(now)}${postgres ? ' FOR UPDATE SKIP LOCKED' : ''})
         RETURNING "id", "endpointId", "messageId", "attempts", "manual", "generation", "leaseOwner"`,
        ...u.params,
      );
      return rows.map((row) => ({
        id: row.id,
        endpointId: row.endpointId,
        messageId: row.messageId,
        attempts: Number(row.attempts),
        manual: Boolean(row.manual),
        generation: Number(row.generation),
        leaseOwner: row.leaseOwner,
      }));
    },

    /**
     * The endpoints and messages of deliveries, in one statement (on SQLite
     * each statement waits its turn), by delivery ID. A delivery deleted
     * meanwhile (with its endpoint or its message's document) is absent.
     */
    async targetsOf(deliveryIds: readonly string[]): Promise<Map<string, DeliveryTarget>> {
      if (deliveryIds.length === 0) return new Map();
      const d = sql();
      const rows = await db.$queryRawUnsafe<
        {
          id: string;
          url: string;
          disabled: boolean | number | bigint;
          rateLimit: number | bigint | null;
          secretSealed: string;
          previousSecretSealed: string | null;
          previousSecretUntil: number | bigint | null;
          body: string;
          eventType: string;
          apiKeyId: string;
          organizationId: string | null;
          documentId: string | null;
          createdAt: number | bigint;
        }[]
      >(
        `SELECT d."id", e."url", e."disabled", e."rateLimit", e."secretSealed", e."previousSecretSealed", e."previousSecretUntil",
                m."body", m."eventType", m."apiKeyId", m."organizationId", m."documentId", m."createdAt"
         FROM "WebhookDelivery" d
         JOIN "WebhookEndpoint" e ON e."id" = d."endpointId"
         JOIN "WebhookMessage" m ON m."id" = d."messageId"
         WHERE d."id" IN (${deliveryIds.map(d.bind).join(', ')})`,
        ...d.params,
      );
      return new Map(
        rows.map((x) => [
          x.id,
          {
            endpoint: {
              url: x.url,
              disabled: Boolean(x.disabled),
              rateLimit: msOf(x.rateLimit),
              secretSealed: x.secretSealed,
              previousSecretSealed: x.previousSecretSealed,
              previousSecretUntil: msOf(x.previousSecretUntil),
            },
            message: {
              body: x.body,
              eventType: x.eventType,
              apiKeyId: x.apiKeyId,
              organizationId: x.organizationId,
              documentId: x.documentId,
              createdAt: Number(x.createdAt),
            },
          },
        ]),
      );
    },

    /** Gives a delivery back without a try, due again at `dueAt`, the claim's count undone; false when no longer under this lease. */
    async release(lease: Lease, dueAt: number, now: number): Promise<boolean> {
      const { count } = await db.webhookDelivery.updateMany({
        where: { id: lease.id, leaseOwner: lease.leaseOwner, generation: lease.generation },
        data: { leaseOwner: null, leaseUntil: null, attempts: { decrement: 1 }, nextAttemptAt: BigInt(dueAt), updatedAt: BigInt(now) },
      });
      return count > 0;
    },

    /** Drops the lease only (whatever the generation); whether it was still ours. */
    async unlease(lease: Pick<Lease, 'id' | 'leaseOwner'>): Promise<boolean> {
      const { count } = await db.webhookDelivery.updateMany({ where: { id: lease.id, leaseOwner: lease.leaseOwner }, data: { leaseOwner: null, leaseUntil: null } });
      return count > 0;
    },

    async deliveryExists(deliveryId: string): Promise<boolean> {
      return (await db.webhookDelivery.findUnique({ where: { id: deliveryId }, select: { id: true } })) !== null;
    },

    /**
     * Ends a delivery without a try: canceled (the claim's count undone) or
     * failed. False when no longer under this lease and generation.
     */
    async endWithoutTry(lease: Lease, state: 'canceled' | 'failed', now: number): Promise<boolean> {
      const { count } = await db.webhookDelivery.updateMany({
        where: { id: lease.id, leaseOwner: lease.leaseOwner, generation: lease.generation },
        data: { state, leaseOwner: null, leaseUntil: null, nextAttemptAt: null, updatedAt: BigInt(now), ...(state === 'canceled' ? { attempts: { decrement: 1 } } : {}) },
      });
      return count > 0;
    },

    /** A try's outcome as the delivery's new state, lease dropped; false when no longer under this lease and generation. */
    async settle(lease: Lease, next: { state: DeliveryState; nextAttemptAt: number | null }, now: number): Promise<boolean> {
      const { count } = await db.webhookDelivery.updateMany({
        where: { id: lease.id, leaseOwner: lease.leaseOwner, generation: lease.generation },
        data: {
          state: next.state,
          manual: false,
          nextAttemptAt: next.nextAttemptAt === null ? null : BigInt(next.nextAttemptAt),
          leaseOwner: null,
          leaseUntil: null,
          updatedAt: BigInt(now),
        },
      });
      return count === 1;
    },

    async createAttempt(input: NewAttempt): Promise<void> {
      await db.webhookAttempt.create({
        data: {
          ...input,
          nextAttemptAt: input.nextAttemptAt === null ? null : BigInt(input.nextAttemptAt),
          createdAt: BigInt(input.createdAt),
        },
      });
    },

    /**
     * Disables an endpoint and cancels its pending deliveries but `exceptId`;
     * one leased elsewhere keeps its lease (its next claim finds the endpoint
     * disabled). Returns how many were canceled.
     */
    async disableEndpoint(endpointId: string, exceptId: string, now: number): Promise<number> {
      const at = BigInt(now);
      await db.webhookEndpoint.updateMany({ where: { id: endpointId }, data: { disabled: true, updatedAt: at } });
      const { count } = await db.webhookDelivery.updateMany({
        where: { endpointId, state: 'pending', id: { not: exceptId }, OR: [{ leaseUntil: null }, { leaseUntil: { lt: at } }] },
        data: { state: 'canceled', nextAttemptAt: null, leaseOwner: null, leaseUntil: null, updatedAt: at },
      });
      return count;
    },

    /**
     * One slot of the endpoint's per-second budget, counted on the endpoint
     * row so every process shares it: a fixed one-second window, taken by one
     * conditional UPDATE. The window only moves forward: a process whose
     * clock is behind is refused rather than resetting a newer window's count.
     */
    async takeRateSlot(endpointId: string, limit: number, second: number): Promise<boolean> {
      const q = sql();
      const rows = await db.$queryRawUnsafe<{ id: string }[]>(
        `UPDATE "WebhookEndpoint"
         SET "rateCount" = CASE WHEN "rateWindow" = ${q.bind(second)} THEN "rateCount" + 1 ELSE 1 END,
             "rateWindow" = ${q.bind(second)}
         WHERE "id" = ${q.bind(endpointId)} AND ("rateWindow" < ${q.bind(second)} OR ("rateWindow" = ${q.bind(second)} AND "rateCount" < ${q.bind(limit)}))
         RETURNING "id"`,
        ...q.params,
      );
      return rows.length === 1;
    },

    /**
     * Pending deliveries, and the due time of the oldest due one nobody
     * holds. Both from the (state, nextAttemptAt, id) index: a count of its
     * pending range, and that range in order up to the first due delivery no
     * process holds (past at most the tries in flight). Not one MIN over the
     * range with the lease in the condition: that reads every pending row.
     */
    async backlog(now: number): Promise<{ pending: number; oldestDueAt: number | null }> {
      const q = sql();
      const [row] = await db.$queryRawUnsafe<{ pending: number | bigint; oldestDue: number | bigint | null }[]>(
        `SELECT (SELECT COUNT(*) FROM "WebhookDelivery" WHERE "state" = 'pending') AS "pending",
                (SELECT "nextAttemptAt" FROM "WebhookDelivery"
                 WHERE "state" = 'pending' AND "nextAttemptAt" <= ${q.bind(now)} AND COALESCE("leaseUntil", 0) < ${q.bind(now)}
                 ORDER BY "nextAttemptAt" LIMIT 1) AS "oldestDue"`,
        ...q.params,
      );
      return { pending: Number(row?.pending ?? 0), oldestDueAt: row?.oldestDue === null || row?.oldestDue === undefined ? null : Number(row.oldestDue) };
    },

    // ── Retention ──────────────────────────────────────────────────────────

    /**
     * Deletes up to `limit` messages created before `cutoff` that have no
     * delivery pending (one still being delivered is kept until it ends),
     * with their deliveries and attempts. Returns how many went.
     */
    async deleteMessagesBefore(cutoff: number, limit: number): Promise<number> {
      const old = await db.webhookMessage.findMany({
        where: { createdAt: { lt: BigInt(cutoff) }, deliveries: { none: { state: 'pending' } } },
        select: { id: true },
        take: limit,
      });
      if (old.length > 0) await db.webhookMessage.deleteMany({ where: { id: { in: old.map((m) => m.id) } } });
      return old.length;
    },
  };
}

export type WebhooksRepo = ReturnType<typeof createWebhooksRepo>;
