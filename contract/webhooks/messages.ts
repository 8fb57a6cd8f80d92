import { z } from 'zod';
import { operation, pagedResultOf, resultOf } from '../common/envelope.js';
import { ZPageSize, ZPageToken } from '../common/paging.js';
import { ZDeliveryStatus, ZEndpointId, ZMessageId, ZWebhookAttempt, ZWebhookMessage } from './schemas.js';

export const getWebhookMessages = operation({
  path: '/v2/workspace/advancedwebhook/messages/get',
  summary: 'Get Advanced Webhook Messages',
  description:
    'The messages sent, or being sent, to one endpoint, newest first, each with its delivery status; optionally only those with one `status`. Paged by an opaque pageToken (null on the last page). NOT_FOUND for an unknown endpoint.',
  data: z.object({ endpointId: ZEndpointId, status: ZDeliveryStatus.optional(), pageSize: ZPageSize, pageToken: ZPageToken }).strict(),
  result: pagedResultOf(ZWebhookMessage),
});

export const getWebhookAttempts = operation({
  path: '/v2/workspace/advancedwebhook/attempts/get',
  summary: 'Get Advanced Webhook Delivery Attempts',
  description:
    'The delivery attempts to one endpoint, newest first; with `messageId`, those of one message. Paged by an opaque pageToken (null on the last page). NOT_FOUND for an unknown endpoint.',
  data: z.object({ endpointId: ZEndpointId, messageId: ZMessageId.optional(), pageSize: ZPageSize, pageToken: ZPageToken }).strict(),
  result: pagedResultOf(ZWebhookAttempt),
});

export const resendWebhookMessage = operation({
  path: '/v2/workspace/advancedwebhook/messages/resend',
  summary: 'Resend Advanced Webhook Message',
  description:
    'Delivers a message to the endpoint again, now, with the same `webhook-id` and body and a fresh retry schedule; a delivery still pending is simply tried now. NOT_FOUND when the message was never meant for this endpoint; FAILED_PRECONDITION while the endpoint is disabled.',
  data: z.object({ endpointId: ZEndpointId, messageId: ZMessageId }).strict(),
  result: resultOf(z.object({ messageId: z.string(), endpointId: z.string(), status: ZDeliveryStatus })),
});
