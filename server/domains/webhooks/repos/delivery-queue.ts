import { directReadsOf, providerOfClient, type Db } from '../../../db/client.js';
import { rawParams } from '../../../db/raw-params.js';

/**
 * The delivery queue the dispatcher works through: due deliveries claimed
 * under a lease, the endpoint and message a try needs, each try's outcome
 * (release, settle, attempts, disabling a failing endpoint), the endpoints'
 * per-second rate slots, and the backlog for the metrics. Its queries span
 * every application, as one process delivers for all of them. Times leave as
 * Unix milliseconds.
 */

export type DeliveryState = 'pending' | 'succeeded' | 'failed' | 'canceled';

/** One try of a delivery, as recorded here and listed by history.ts. */
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
export type Lease = Pick<LeasedDelivery, 'id' | 'leaseOwner' | 'generation'>;

/** A finished try's new state for its delivery, written only while the delivery is still under the try's lease. */
export interface Settlement {
  lease: Lease;
  state: DeliveryState;
  nextAttemptAt: number | null;
}

/** A nullable BigInt column as a number (times in ms, counts). */
export const msOf = (value: number | bigint | null) => (value === null ? null : Number(value));

export function createDeliveryQueueRepo(db: Db) {
  const postgres = providerOfClient(db) === 'postgresql';

  /**
   * Rows of `leases` still held as they were claimed: the primary key finds
   * them (`id IN`), then each must match its own lease (owner, and the
   * generation when given), so one resent or reclaimed meanwhile is left out.
   */
  const underLeases = (q: ReturnType<typeof rawParams>, leases: readonly Pick<Lease, 'id' | 'leaseOwner'>[], generation: readonly (number | undefined)[]) =>
    `"id" IN (${leases.map((lease) => q.bind(lease.id)).join(', ')}) AND (${leases
      .map((lease, i) => {
        const g = generation[i];
        return `("id" = ${q.bind(lease.id)} AND "leaseOwner" = ${q.bind(lease.leaseOwner)}${g === undefined ? '' : ` AND "generation" = ${q.bind(g)}`})`;
      })
      .join(' OR ')})`;

  return {
    /**
     * Due deliveries nobody holds, oldest first from the (state,
     * nextAttemptAt) index, leaving out `excluded` endpoints. Only
     * candidates: leaseDue decides.
     */
    dueCandidates(now: number, excluded: ReadonlySet<string>, limit: number): Promise<{ id: string; endpointId: string }[]> {
      const q = rawParams(db);
      // Past the ORM (db/direct-reads.ts): the claim runs for every batch of tries, and the ORM's own work per
      // query was most of its cost.
      return directReadsOf(db).rows(
        { id: 'text', endpointId: 'text' },
        `SELECT "id", "endpointId" FROM "WebhookDelivery"
         WHERE "state" = 'pending' AND "nextAttemptAt" <= ${q.bind(now)} AND COALESCE("leaseUntil", 0) < ${q.bind(now)}
         ${excluded.size > 0 ? `AND "endpointId" NOT IN (${[...excluded].map(q.bind).join(', ')})` : ''}
         ORDER BY "nextAttemptAt", "id" LIMIT ${q.bind(limit)}`,
        q.params,
      );
    },

    /**
     * Leases those of `ids` still due and free to `owner` until `leaseUntil`,
     * counting a try, in one conditional UPDATE: of two processes racing for a
     * delivery one gets it and the other nothing (SKIP LOCKED on PostgreSQL:
     * they never wait on each other's rows).
     */
    async leaseDue(ids: readonly string[], owner: string, now: number, leaseUntil: number): Promise<LeasedDelivery[]> {
      const u = rawParams(db);
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
      const d = rawParams(db);
      const rows = await directReadsOf(db).rows(
        {
          id: 'text',
          url: 'text',
          disabled: 'bool',
          rateLimit: 'int?',
          secretSealed: 'text',
          previousSecretSealed: 'text?',
          previousSecretUntil: 'bigint?',
          body: 'text',
          eventType: 'text',
          apiKeyId: 'text',
          organizationId: 'text?',
          documentId: 'text?',
          createdAt: 'bigint',
        },
        `SELECT d."id", e."url", e."disabled", e."rateLimit", e."secretSealed", e."previousSecretSealed", e."previousSecretUntil",
                m."body", m."eventType", m."apiKeyId", m."organizationId", m."documentId", m."createdAt"
         FROM "WebhookDelivery" d
         JOIN "WebhookEndpoint" e ON e."id" = d."endpointId"
         JOIN "WebhookMessage" m ON m."id" = d."messageId"
         WHERE d."id" IN (${deliveryIds.map(d.bind).join(', ')})`,
        d.params,
      );
      return new Map(
        rows.map((x) => [
          x.id,
          {
            endpoint: {
              url: x.url,
              disabled: x.disabled,
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

    /**
     * Finished tries' new states in as few statements as there are distinct
     * (state, next try) pairs: every success is one UPDATE. Returns the IDs
     * written; a delivery resent or claimed again since its try began is not
     * (its own schedule stands).
     */
    async settleMany(settlements: readonly Settlement[], now: number): Promise<Set<string>> {
      const groups = new Map<string, Settlement[]>();
      for (const item of settlements) {
        const key = `${item.state} ${item.nextAttemptAt ?? ''}`;
        const group = groups.get(key);
        if (group === undefined) groups.set(key, [item]);
        else group.push(item);
      }
      const settled = new Set<string>();
      for (const group of groups.values()) {
        const { state, nextAttemptAt } = group[0]!;
        const q = rawParams(db);
        const rows = await db.$queryRawUnsafe<{ id: string }[]>(
          `UPDATE "WebhookDelivery" SET "state" = ${q.bind(state)}, "manual" = ${q.bind(false)}, "nextAttemptAt" = ${q.bind(nextAttemptAt)},
             "leaseOwner" = NULL, "leaseUntil" = NULL, "updatedAt" = ${q.bind(now)}
           WHERE ${underLeases(q, group.map((item) => item.lease), group.map((item) => item.lease.generation))}
           RETURNING "id"`,
          ...q.params,
        );
        for (const row of rows) settled.add(row.id);
      }
      return settled;
    },

    /** unlease for several deliveries in one statement; returns the IDs that were still held by their lease owner. */
    async unleaseMany(leases: readonly Pick<Lease, 'id' | 'leaseOwner'>[]): Promise<Set<string>> {
      if (leases.length === 0) return new Set();
      const q = rawParams(db);
      const rows = await db.$queryRawUnsafe<{ id: string }[]>(
        `UPDATE "WebhookDelivery" SET "leaseOwner" = NULL, "leaseUntil" = NULL
         WHERE ${underLeases(q, leases, [])}
         RETURNING "id"`,
        ...q.params,
      );
      return new Set(rows.map((row) => row.id));
    },

    /** Which of these deliveries still exist. */
    async existing(deliveryIds: readonly string[]): Promise<Set<string>> {
      if (deliveryIds.length === 0) return new Set();
      const rows = await db.webhookDelivery.findMany({ where: { id: { in: [...deliveryIds] } }, select: { id: true } });
      return new Set(rows.map((row) => row.id));
    },

    /**
     * Several tries' attempt rows in one INSERT. Hand-written: the ORM's
     * createMany compiles its query anew for every row count, and the
     * batches of the recorder come in every size. Not db/bulk.ts's
     * insertMany: a response excerpt cut at its length limit may end in half
     * a surrogate pair, which PostgreSQL's JSON (insertMany's one parameter)
     * refuses, where a bound text parameter takes it (as U+FFFD).
     */
    async createAttempts(inputs: readonly NewAttempt[]): Promise<void> {
      if (inputs.length === 0) return;
      const q = rawParams(db);
      const rows = inputs.map(
        (x) =>
          `(${[x.id, x.apiKeyId, x.deliveryId, x.endpointId, x.messageId, x.status, x.responseStatusCode, x.response, x.durationMs, x.trigger, x.nextAttemptAt, x.createdAt]
            .map(q.bind)
            .join(', ')})`,
      );
      await db.$executeRawUnsafe(
        `INSERT INTO "WebhookAttempt" ("id", "apiKeyId", "deliveryId", "endpointId", "messageId", "status", "responseStatusCode", "response", "durationMs", "trigger", "nextAttemptAt", "createdAt")
         VALUES ${rows.join(', ')}`,
        ...q.params,
      );
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
      const q = rawParams(db);
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
      const q = rawParams(db);
      const [row] = await db.$queryRawUnsafe<{ pending: number | bigint; oldestDue: number | bigint | null }[]>(
        `SELECT (SELECT COUNT(*) FROM "WebhookDelivery" WHERE "state" = 'pending') AS "pending",
                (SELECT "nextAttemptAt" FROM "WebhookDelivery"
                 WHERE "state" = 'pending' AND "nextAttemptAt" <= ${q.bind(now)} AND COALESCE("leaseUntil", 0) < ${q.bind(now)}
                 ORDER BY "nextAttemptAt" LIMIT 1) AS "oldestDue"`,
        ...q.params,
      );
      return { pending: Number(row?.pending ?? 0), oldestDueAt: row?.oldestDue === null || row?.oldestDue === undefined ? null : Number(row.oldestDue) };
    },
  };
}

export type DeliveryQueueRepo = ReturnType<typeof createDeliveryQueueRepo>;
