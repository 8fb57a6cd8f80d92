import type { Db } from '../../db/client.js';

/**
 * Webhook messages, each written with one pending delivery per matching
 * endpoint; moved with their document, deleted with their document,
 * organization or application (their deliveries and attempts go with them),
 * and pruned once old. Times arrive as Unix milliseconds and are stored as
 * BigInt here.
 */

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

export function createWebhookMessagesRepo(db: Db) {
  return {
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
