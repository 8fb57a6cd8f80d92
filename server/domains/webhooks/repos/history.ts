import type { Db } from '../../../db/client.js';
import { afterMs, byCreation, type Cursor } from '../../../db/keyset.js';
import { msOf, type AttemptRecord, type DeliveryState } from './delivery-queue.js';

/**
 * What was sent to an endpoint and how each try went, as pages newest first,
 * and a resend's fresh schedule. Reads are scoped by an endpoint the caller
 * found under its application first. Times leave as Unix milliseconds.
 */

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

/** Newest first, by (createdAt, id) below the cursor. */
const before = (after: Cursor | undefined) => afterMs(after, { order: 'desc' });
const newestFirst = byCreation('desc');

export function createWebhookHistoryRepo(db: Db) {
  return {
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
  };
}

export type WebhookHistoryRepo = ReturnType<typeof createWebhookHistoryRepo>;
