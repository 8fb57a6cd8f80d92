import { z } from 'zod';
import { operation, pagedResultOf, resultOf } from '../common/envelope.js';
import { ZPageSize, ZPageToken } from '../common/paging.js';
import { ZDeliveryStatus, ZEndpointId, ZMessageId, ZWebhookAttempt, ZWebhookMessage } from './schemas.js';
import { ADA, EXAMPLE_API_KEY } from '../access/examples.js';
import { UNTRIAGED } from '../comments/examples.js';
import { FIRST_MESSAGE_ID, REVIEW_BOT_ENDPOINT_ID } from './examples.js';

export const getWebhookMessages = operation({
  path: '/v2/workspace/advancedwebhook/messages/get',
  summary: 'Get Advanced Webhook Messages',
  description:
    'The messages sent, or being sent, to one endpoint, newest first, each with its delivery status; optionally only those with one `status`. Paged by an opaque pageToken (null on the last page). NOT_FOUND for an unknown endpoint.',
  data: z.object({ endpointId: ZEndpointId, status: ZDeliveryStatus.optional(), pageSize: ZPageSize, pageToken: ZPageToken }).strict(),
  result: pagedResultOf(ZWebhookMessage),
  example: {
    data: { endpointId: REVIEW_BOT_ENDPOINT_ID, pageSize: 20 },
    result: {
      status: 'success',
      message: 'Webhook messages retrieved successfully.',
      data: [
        {
          messageId: FIRST_MESSAGE_ID,
          endpointId: REVIEW_BOT_ENDPOINT_ID,
          eventType: 'comment_annotation.add',
          status: 'succeeded',
          attempts: 1,
          nextAttemptAt: null,
          createdAt: '2026-03-16T10:15:22.307Z',
          payload: {
            event: 'comment_annotation.add',
            actionType: 'add',
            source: 'comment_annotation',
            data: {
              annotation: {
                annotationId: 'ann-launch-date',
                organizationId: 'org-acme',
                documentId: 'doc-q3-plan',
                ...UNTRIAGED,
                from: ADA,
                comments: [
                  {
                    commentId: 'cmt-launch-1',
                    commentText: 'Is the launch still planned for 14 September?',
                    from: ADA,
                    taggedUserContacts: [],
                    createdAt: 1773656122307,
                    lastUpdated: 1773656122307,
                    reactions: [],
                  },
                ],
                createdAt: 1773656122307,
                lastUpdated: 1773656122307,
              },
              actionUser: ADA,
            },
            webhookId: FIRST_MESSAGE_ID,
            timestamp: 1773656122307,
            metadata: { apiKey: EXAMPLE_API_KEY, organizationId: 'org-acme', documentId: 'doc-q3-plan' },
          },
        },
      ],
      pageToken: null,
    },
  },
});

export const getWebhookAttempts = operation({
  path: '/v2/workspace/advancedwebhook/attempts/get',
  summary: 'Get Advanced Webhook Delivery Attempts',
  description:
    'The delivery attempts to one endpoint, newest first; with `messageId`, those of one message. Paged by an opaque pageToken (null on the last page). NOT_FOUND for an unknown endpoint.',
  data: z.object({ endpointId: ZEndpointId, messageId: ZMessageId.optional(), pageSize: ZPageSize, pageToken: ZPageToken }).strict(),
  result: pagedResultOf(ZWebhookAttempt),
  example: {
    data: { endpointId: REVIEW_BOT_ENDPOINT_ID, messageId: FIRST_MESSAGE_ID },
    result: {
      status: 'success',
      message: 'Webhook delivery attempts retrieved successfully.',
      data: [
        {
          attemptId: 'atmpt_01KKV366DMG2RMQTVYA2PEKXQP',
          messageId: FIRST_MESSAGE_ID,
          endpointId: REVIEW_BOT_ENDPOINT_ID,
          status: 'succeeded',
          responseStatusCode: 200,
          response: '{"received":true}',
          durationMs: 118,
          trigger: 'manual',
          nextAttemptAt: null,
          createdAt: '2026-03-16T10:31:10.004Z',
        },
        {
          attemptId: 'atmpt_01KKV298Y3CHMH96FP7GKZ7ARQ',
          messageId: FIRST_MESSAGE_ID,
          endpointId: REVIEW_BOT_ENDPOINT_ID,
          status: 'succeeded',
          responseStatusCode: 200,
          response: '{"received":true}',
          durationMs: 143,
          trigger: 'scheduled',
          nextAttemptAt: null,
          createdAt: '2026-03-16T10:15:22.307Z',
        },
      ],
      pageToken: null,
    },
  },
});

export const resendWebhookMessage = operation({
  path: '/v2/workspace/advancedwebhook/messages/resend',
  summary: 'Resend Advanced Webhook Message',
  description:
    'Delivers a message to the endpoint again, now, with the same `webhook-id` and body and a fresh retry schedule; a delivery still pending is simply tried now. NOT_FOUND when the message was never meant for this endpoint; FAILED_PRECONDITION while the endpoint is disabled.',
  data: z.object({ endpointId: ZEndpointId, messageId: ZMessageId }).strict(),
  result: resultOf(z.object({ messageId: z.string(), endpointId: z.string(), status: ZDeliveryStatus })),
  example: {
    data: { endpointId: REVIEW_BOT_ENDPOINT_ID, messageId: FIRST_MESSAGE_ID },
    result: {
      status: 'success',
      message: 'Message queued for delivery again.',
      data: { messageId: FIRST_MESSAGE_ID, endpointId: REVIEW_BOT_ENDPOINT_ID, status: 'pending' },
    },
  },
});
