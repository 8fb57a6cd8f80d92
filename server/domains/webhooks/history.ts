import type { z } from 'zod';
import type { ZDeliveryStatus } from '../../../contract/webhooks/schemas.js';
import type { Db } from '../../db/client.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import { failedPrecondition, notFound } from '../../lib/app-error.js';
import type { Clock } from '../../lib/clock.js';
import { keysetAfter, type Cursor, type PageTokens } from '../../lib/page-token.js';
import { iso, type WebhookEndpoints } from './endpoints.js';
import { withApiKey } from './messages.js';

type DeliveryStatus = z.infer<typeof ZDeliveryStatus>;


/** Newest first, by (createdAt, id) below the cursor. */
const before = (after: Cursor | undefined) => keysetAfter(after, BigInt, { order: 'desc' });
const newestFirst = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];

/** What was sent to an endpoint and how each try went; resending. */
export function createWebhookHistory(deps: {
  db: Db;
  uow: UnitOfWork;
  clock: Clock;
  pageTokens: PageTokens;
  endpoints: WebhookEndpoints;
  apiKeyOf(apiKeyId: string): Promise<string>;
  wake(): void;
}) {
  const { db } = deps;

  return {
    async messages(apiKeyId: string, input: { endpointId: string; status?: DeliveryStatus; pageSize?: number; pageToken?: string }) {
      const endpoint = await deps.endpoints.find(apiKeyId, input.endpointId);
      const page = await deps.pageTokens.page(
        JSON.stringify(['webhook-messages', apiKeyId, endpoint.id, input.status ?? null]),
        input,
        (after, take) =>
          db.webhookDelivery.findMany({
            where: { endpointId: endpoint.id, ...(input.status === undefined ? {} : { state: input.status }), ...before(after) },
            orderBy: newestFirst,
            take,
            include: { message: { select: { eventType: true, body: true, createdAt: true } } },
          }),
        (row) => ({ at: Number(row.createdAt), id: row.id }),
      );
      const apiKey = await deps.apiKeyOf(apiKeyId);
      return {
        items: page.items.map((row) => ({
          messageId: row.messageId,
          endpointId: row.endpointId,
          eventType: row.message.eventType,
          status: row.state as DeliveryStatus,
          attempts: row.attempts,
          nextAttemptAt: row.state === 'pending' ? (row.nextAttemptAt === null ? null : iso(row.nextAttemptAt)) : null,
          createdAt: iso(row.message.createdAt),
          payload: JSON.parse(withApiKey(row.message.body, apiKey)) as Record<string, unknown>,
        })),
        pageToken: page.pageToken,
      };
    },

    async attempts(apiKeyId: string, input: { endpointId: string; messageId?: string; pageSize?: number; pageToken?: string }) {
      const endpoint = await deps.endpoints.find(apiKeyId, input.endpointId);
      const page = await deps.pageTokens.page(
        JSON.stringify(['webhook-attempts', apiKeyId, endpoint.id, input.messageId ?? null]),
        input,
        (after, take) =>
          db.webhookAttempt.findMany({
            where: { endpointId: endpoint.id, ...(input.messageId === undefined ? {} : { messageId: input.messageId }), ...before(after) },
            orderBy: newestFirst,
            take,
          }),
        (row) => ({ at: Number(row.createdAt), id: row.id }),
      );
      return {
        items: page.items.map((row) => ({
          attemptId: row.id,
          messageId: row.messageId,
          endpointId: row.endpointId,
          status: row.status as 'succeeded' | 'failed',
          responseStatusCode: row.responseStatusCode,
          response: row.response,
          durationMs: row.durationMs,
          trigger: row.trigger as 'scheduled' | 'manual',
          nextAttemptAt: row.nextAttemptAt === null ? null : iso(row.nextAttemptAt),
          createdAt: iso(row.createdAt),
        })),
        pageToken: page.pageToken,
      };
    },

    /** A fresh schedule from now for one message to one endpoint; a try in flight finishes first. */
    async resend(apiKeyId: string, input: { endpointId: string; messageId: string }) {
      const result = await deps.uow.run(async () => {
        const endpoint = await deps.endpoints.find(apiKeyId, input.endpointId);
        if (endpoint.disabled) throw failedPrecondition(`webhook endpoint ${endpoint.id} is disabled: enable it before resending`);
        const now = BigInt(deps.clock.nowMs());
        const { count } = await db.webhookDelivery.updateMany({
          where: { endpointId: endpoint.id, messageId: input.messageId },
          // A try in flight keeps its lease (no second copy runs beside it); the new generation keeps it from overwriting this schedule.
          data: { state: 'pending', attempts: 0, manual: true, generation: { increment: 1 }, nextAttemptAt: now, updatedAt: now },
        });
        if (count === 0) throw notFound(`message ${input.messageId} was never sent to webhook endpoint ${endpoint.id}`);
        return { messageId: input.messageId, endpointId: endpoint.id, status: 'pending' as const };
      });
      deps.wake();
      return result;
    },
  };
}

export type WebhookHistory = ReturnType<typeof createWebhookHistory>;
