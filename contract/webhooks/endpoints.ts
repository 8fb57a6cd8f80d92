import { z } from 'zod';
import { operation, pagedResultOf, resultOf } from '../common/envelope.js';
import { ZPageSize, ZPageToken } from '../common/paging.js';
import { boundedObject, MAX_FREE_OBJECT_DEPTH } from '../comments/inputs.js';
import {
  ZChannels,
  ZEndpointId,
  ZEndpointMetadata,
  ZEndpointUid,
  ZEndpointUrl,
  ZFilterTypes,
  ZRateLimit,
  ZWebhookEndpoint,
} from './schemas.js';
import { REVIEW_BOT_ENDPOINT, REVIEW_BOT_ENDPOINT_ID, REVIEW_BOT_ENDPOINT_UPDATED } from './examples.js';

/** A sample event's data: what a receiver is tested with, bounded like other free objects. */
export const MAX_TEST_EVENT_DATA_BYTES = 65_536;

const URL_RULES =
  'The URL must be http(s); unless the server runs with WEBHOOK_ALLOW_PRIVATE_URLS=true, a host that is or resolves to a loopback, private, link-local or otherwise non-public address is INVALID_ARGUMENT (and deliveries check it again, against DNS rebinding).';

export const createWebhookEndpoint = operation({
  path: '/v2/workspace/advancedwebhook/endpoints/create',
  summary: 'Create Advanced Webhook Endpoint',
  description: `Adds an endpoint that receives the application's events, signed with a secret the service generates (see Get Advanced Webhook Endpoint Secret; it is never part of the endpoint record). Repeated \`filterTypes\` and \`channels\` entries are kept once. ${URL_RULES} FAILED_PRECONDITION while advanced webhooks are disabled; ALREADY_EXISTS when another endpoint of the application has the same \`uid\`.`,
  data: z
    .object({
      url: ZEndpointUrl,
      description: z.string().max(1024).optional(),
      filterTypes: ZFilterTypes.optional(),
      channels: ZChannels.optional(),
      disabled: z.boolean().optional().describe('Default false.'),
      rateLimit: ZRateLimit.optional(),
      uid: ZEndpointUid.optional(),
      metadata: ZEndpointMetadata.optional(),
    })
    .strict(),
  result: resultOf(ZWebhookEndpoint),
  example: {
    data: {
      url: 'https://hooks.example.com/collab',
      description: 'Comment events for the Acme review bot',
      filterTypes: ['comment_annotation.add', 'comment.add'],
      channels: ['org:org-acme'],
      rateLimit: 50,
      uid: 'acme-review-bot',
      metadata: { team: 'platform', environment: 'production' },
    },
    result: {
      status: 'success',
      message: 'Webhook endpoint created.',
      data: REVIEW_BOT_ENDPOINT,
    },
  },
});

export const getWebhookEndpoints = operation({
  path: '/v2/workspace/advancedwebhook/endpoints/get',
  summary: 'Get Advanced Webhook Endpoints',
  description:
    'With `endpointId`: that endpoint, as a one-item list (NOT_FOUND when the application has no such endpoint; a `pageToken` is INVALID_ARGUMENT there, as it belongs to another query). Without: the application\'s endpoints, oldest first, paged by an opaque pageToken (null on the last page).',
  data: z.object({ endpointId: ZEndpointId.optional(), pageSize: ZPageSize, pageToken: ZPageToken }).strict(),
  result: pagedResultOf(ZWebhookEndpoint),
  example: {
    data: { pageSize: 20 },
    result: {
      status: 'success',
      message: 'Webhook endpoints retrieved successfully.',
      data: [REVIEW_BOT_ENDPOINT],
      pageToken: null,
    },
  },
});

export const updateWebhookEndpoint = operation({
  path: '/v2/workspace/advancedwebhook/endpoints/update',
  summary: 'Update Advanced Webhook Endpoint',
  description: `Changes the fields sent; the others keep their values. \`null\` clears \`filterTypes\`, \`channels\` (back to all), \`rateLimit\` and \`uid\`; \`metadata\` replaces the stored map. Re-enabling (\`disabled: false\`) does not bring back messages canceled while the endpoint was disabled: resend them. ${URL_RULES} At least one field besides \`endpointId\` (INVALID_ARGUMENT otherwise); NOT_FOUND for an unknown endpoint; ALREADY_EXISTS for a \`uid\` another endpoint has. Allowed while advanced webhooks are disabled.`,
  data: z
    .object({
      endpointId: ZEndpointId,
      url: ZEndpointUrl.optional(),
      description: z.string().max(1024).optional(),
      filterTypes: ZFilterTypes.nullable().optional(),
      channels: ZChannels.nullable().optional(),
      disabled: z.boolean().optional(),
      rateLimit: ZRateLimit.nullable().optional(),
      uid: ZEndpointUid.nullable().optional(),
      metadata: ZEndpointMetadata.optional(),
    })
    .strict()
    .refine((d) => Object.keys(d).some((key) => key !== 'endpointId'), { message: 'give at least one field to change', path: ['endpointId'] }),
  result: resultOf(ZWebhookEndpoint),
  example: {
    data: { endpointId: REVIEW_BOT_ENDPOINT_ID, filterTypes: ['comment_annotation.add', 'comment.add', 'comment_annotation.status_change'] },
    result: {
      status: 'success',
      message: 'Webhook endpoint updated.',
      data: REVIEW_BOT_ENDPOINT_UPDATED,
    },
  },
});

export const deleteWebhookEndpoint = operation({
  path: '/v2/workspace/advancedwebhook/endpoints/delete',
  summary: 'Delete Advanced Webhook Endpoint',
  description: 'Deletes the endpoint with its pending deliveries and their history. NOT_FOUND for an unknown endpoint.',
  data: z.object({ endpointId: ZEndpointId }).strict(),
  result: resultOf(z.object({ endpointId: z.string() })),
  example: {
    data: { endpointId: REVIEW_BOT_ENDPOINT_ID },
    result: { status: 'success', message: 'Webhook endpoint deleted.', data: { endpointId: REVIEW_BOT_ENDPOINT_ID } },
  },
});

const ZSecretResult = z.object({
  endpointId: z.string(),
  secret: z.string().describe('`whsec_` followed by the base64 signing key: what Standard Webhooks (and Svix) verifiers take.'),
});

export const getWebhookEndpointSecret = operation({
  path: '/v2/workspace/advancedwebhook/endpoints/secret/get',
  summary: 'Get Advanced Webhook Endpoint Secret',
  description: "The endpoint's current signing secret. NOT_FOUND for an unknown endpoint or another application's.",
  data: z.object({ endpointId: ZEndpointId }).strict(),
  result: resultOf(ZSecretResult),
  example: {
    data: { endpointId: REVIEW_BOT_ENDPOINT_ID },
    result: {
      status: 'success',
      message: 'Webhook endpoint secret retrieved successfully.',
      data: { endpointId: REVIEW_BOT_ENDPOINT_ID, secret: 'whsec_EXAMPLEsigningSecretDoNotUseInProduction000=' },
    },
  },
});

export const rotateWebhookEndpointSecret = operation({
  path: '/v2/workspace/advancedwebhook/endpoints/secret/rotate',
  summary: 'Rotate Advanced Webhook Endpoint Secret',
  description:
    'Generates a new signing secret and returns it. For 24 hours deliveries carry two signatures (`v1,<new> v1,<old>` in `webhook-signature`), so receivers still holding the old secret keep verifying while they switch. Rotating again within those 24 hours drops the oldest secret. NOT_FOUND for an unknown endpoint.',
  data: z.object({ endpointId: ZEndpointId }).strict(),
  result: resultOf(ZSecretResult),
  example: {
    data: { endpointId: REVIEW_BOT_ENDPOINT_ID },
    result: {
      status: 'success',
      message: 'Webhook endpoint secret rotated; the previous secret keeps signing for 24 hours.',
      data: { endpointId: REVIEW_BOT_ENDPOINT_ID, secret: 'whsec_EXAMPLErotatedSigningSecretDoNotUseInProd00=' },
    },
  },
});

export const sendWebhookTestEvent = operation({
  path: '/v2/workspace/advancedwebhook/endpoints/test',
  summary: 'Send Test Event',
  description:
    'Sends one message to this endpoint only, whatever its `filterTypes` and `channels`, with the usual signing, retries and history. `eventType` defaults to `webhook.test`; `data` becomes the payload\'s `data`. NOT_FOUND for an unknown endpoint; FAILED_PRECONDITION while the endpoint is disabled or advanced webhooks are disabled.',
  data: z
    .object({
      endpointId: ZEndpointId,
      eventType: z.string().min(1).max(256).optional(),
      data: boundedObject(z.record(z.unknown()), MAX_TEST_EVENT_DATA_BYTES)
        .optional()
        .describe(`The payload's \`data\` (default \`{}\`): a JSON object of at most ${MAX_TEST_EVENT_DATA_BYTES} bytes and ${MAX_FREE_OBJECT_DEPTH} levels.`),
    })
    .strict(),
  result: resultOf(z.object({ messageId: z.string(), endpointId: z.string() })),
  example: {
    data: { endpointId: REVIEW_BOT_ENDPOINT_ID, data: { note: 'Checking the review bot receives events' } },
    result: {
      status: 'success',
      message: 'Test event queued for delivery.',
      data: { messageId: 'msg_01KKV3D7105AFTPNXVTSDYEY9Y', endpointId: REVIEW_BOT_ENDPOINT_ID },
    },
  },
});
