import type { TWebhookPayload } from '../../../../contract/webhooks/payload.js';
import { insertMany } from '../../../db/bulk.js';
import type { Db } from '../../../db/client.js';
import { encodeJsonText } from '../../../db/json-columns.js';

/**
 * Webhook messages, each written with one pending delivery per matching
 * endpoint; moved with their document, deleted with their document,
 * organization or application (their deliveries and attempts go with them),
 * and pruned once old. Times arrive as Unix milliseconds and are stored as
 * BigInt here. The body column holds the payload's JSON text, written once:
 * every try and resend sends those bytes (with the API key put in by
 * ../messages.ts withApiKey), and history.ts and delivery-queue.ts read them
 * as text for that reason.
 */

export interface NewMessage {
  id: string;
  apiKeyId: string;
  eventType: string;
  eventId: string | null;
  organizationId: string | null;
  documentId: string | null;
  /** What every try sends, without the API key (see withApiKey). */
  payload: TWebhookPayload;
  createdAt: number;
}

/** A stored payload read back for owned data: only its metadata and data are looked at, and either may be missing from a hand-edited row. */
export type StoredPayload = Partial<TWebhookPayload>;

/** A message's ID and its payload decoded. */
export interface MessagePayload {
  id: string;
  payload: StoredPayload;
}

const payloadsFrom = (rows: { id: string; body: string }[]): MessagePayload[] => rows.map((row) => ({ id: row.id, payload: JSON.parse(row.body) as StoredPayload }));

export function createWebhookMessagesRepo(db: Db) {
  return {
    async createMessage(input: NewMessage): Promise<void> {
      const { payload, ...message } = input;
      // Past the ORM (db/bulk.ts), as its deliveries: written inside every event's transaction while webhooks are on.
      await insertMany(db, 'WebhookMessage', [{ ...message, body: encodeJsonText(payload), createdAt: BigInt(input.createdAt) }]);
    },

    /** One pending delivery per endpoint, due at `now`. */
    async createDeliveries(apiKeyId: string, messageId: string, deliveries: readonly { id: string; endpointId: string }[], now: number): Promise<void> {
      const at = BigInt(now);
      await insertMany(
        db,
        'WebhookDelivery',
        deliveries.map(({ id, endpointId }) => ({ id, apiKeyId, messageId, endpointId, state: 'pending', nextAttemptAt: at, createdAt: at, updatedAt: at })),
      );
    },

    /** A document's messages in ID order after `after`, with their payloads, for moving them. */
    messagesOfDocument: async (document: { apiKeyId: string; organizationId: string; documentId: string }, after: string, take: number): Promise<MessagePayload[]> =>
      payloadsFrom(
        await db.webhookMessage.findMany({
          where: { ...document, id: { gt: after } },
          orderBy: { id: 'asc' },
          take,
          select: { id: true, body: true },
        }),
      ),

    /** Moves a message to `documentId` with its payload rewritten (so later tries and resends name the new ID). */
    async moveMessage(messageId: string, documentId: string, payload: StoredPayload): Promise<void> {
      await db.webhookMessage.update({ where: { id: messageId }, data: { documentId, body: encodeJsonText(payload) } });
    },

    /**
     * The application's messages in ID order after `after` that may name
     * `userId`, with their payloads: a text search for the user object's ID
     * in the stored JSON narrows the candidates, the caller decides on the
     * payload. An ID whose JSON form has a backslash is not searched for
     * (LIKE reads backslashes as escapes on PostgreSQL): then every message
     * of the application is a candidate.
     */
    async messagesMaybeNaming(apiKeyId: string, userId: string, after: string, take: number): Promise<MessagePayload[]> {
      const marker = `"userId":${JSON.stringify(userId)}`;
      const text = marker.includes('\\') ? undefined : marker;
      return payloadsFrom(
        await db.webhookMessage.findMany({
          where: { apiKeyId, id: { gt: after }, ...(text === undefined ? {} : { body: { contains: text } }) },
          orderBy: { id: 'asc' },
          take,
          select: { id: true, body: true },
        }),
      );
    },

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

export type WebhookMessagesRepo = ReturnType<typeof createWebhookMessagesRepo>;
