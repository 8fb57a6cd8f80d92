import type { DataOf } from '../../../../contract/common/envelope.js';
import type { getWebhookAttempts, getWebhookMessages, resendWebhookMessage } from '../../../../contract/webhooks/messages.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import { failedPrecondition, notFound } from '../../../lib/app-error.js';
import type { Clock } from '../../../lib/clock.js';
import { pageScope } from '../../../lib/page-scope.js';
import type { PageTokens } from '../../../lib/page-token.js';
import { iso, type WebhookEndpoints } from './endpoints.js';
import { withApiKey } from '../messages.js';
import type { WebhookHistoryRepo } from '../repos/history.js';

/** What was sent to an endpoint and how each try went; resending. */
export function createWebhookHistory(deps: {
  repo: WebhookHistoryRepo;
  uow: UnitOfWork;
  clock: Clock;
  pageTokens: PageTokens;
  endpoints: WebhookEndpoints;
  apiKeyOf(apiKeyId: string): Promise<string>;
  wake(): void;
}) {
  const { repo } = deps;
  const newestFirst = (record: { createdAt: number; id: string }) => ({ at: record.createdAt, id: record.id });

  return {
    async messages(apiKeyId: string, input: DataOf<typeof getWebhookMessages>) {
      const endpoint = await deps.endpoints.find(apiKeyId, input.endpointId);
      const page = await deps.pageTokens.page(
        pageScope('webhook-messages', apiKeyId, endpoint.id, input.status ?? null),
        input,
        (after, take) => repo.deliveriesOf(endpoint.id, input.status, after, take),
        newestFirst,
      );
      const apiKey = await deps.apiKeyOf(apiKeyId);
      return {
        items: page.items.map((delivery) => ({
          messageId: delivery.messageId,
          endpointId: delivery.endpointId,
          eventType: delivery.message.eventType,
          status: delivery.state,
          attempts: delivery.attempts,
          nextAttemptAt: delivery.state === 'pending' ? (delivery.nextAttemptAt === null ? null : iso(delivery.nextAttemptAt)) : null,
          createdAt: iso(delivery.message.createdAt),
          payload: JSON.parse(withApiKey(delivery.message.body, apiKey)) as Record<string, unknown>,
        })),
        pageToken: page.pageToken,
      };
    },

    async attempts(apiKeyId: string, input: DataOf<typeof getWebhookAttempts>) {
      const endpoint = await deps.endpoints.find(apiKeyId, input.endpointId);
      const page = await deps.pageTokens.page(
        pageScope('webhook-attempts', apiKeyId, endpoint.id, input.messageId ?? null),
        input,
        (after, take) => repo.attemptsOf(endpoint.id, input.messageId, after, take),
        newestFirst,
      );
      return {
        items: page.items.map((attempt) => ({
          attemptId: attempt.id,
          messageId: attempt.messageId,
          endpointId: attempt.endpointId,
          status: attempt.status,
          responseStatusCode: attempt.responseStatusCode,
          response: attempt.response,
          durationMs: attempt.durationMs,
          trigger: attempt.trigger,
          nextAttemptAt: attempt.nextAttemptAt === null ? null : iso(attempt.nextAttemptAt),
          createdAt: iso(attempt.createdAt),
        })),
        pageToken: page.pageToken,
      };
    },

    /** A fresh schedule from now for one message to one endpoint; a try in flight finishes first. */
    async resend(apiKeyId: string, input: DataOf<typeof resendWebhookMessage>) {
      const result = await deps.uow.run(async () => {
        const endpoint = await deps.endpoints.find(apiKeyId, input.endpointId);
        if (endpoint.disabled) throw failedPrecondition(`webhook endpoint ${endpoint.id} is disabled: enable it before resending`);
        if (!(await repo.resend(endpoint.id, input.messageId, deps.clock.nowMs()))) {
          throw notFound(`message ${input.messageId} was never sent to webhook endpoint ${endpoint.id}`);
        }
        return { messageId: input.messageId, endpointId: endpoint.id, status: 'pending' as const };
      });
      deps.wake();
      return result;
    },
  };
}

export type WebhookHistory = ReturnType<typeof createWebhookHistory>;
