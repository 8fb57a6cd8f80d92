import { z } from 'zod';
import { rawOperation, resultOf } from '../common/envelope.js';
import { named } from '../common/named.js';
import { ZDefinitionId } from './schemas.js';

/** Largest body a trigger takes, as the hosted service: a bigger one is refused before it is parsed. */
export const MAX_INBOUND_BODY_BYTES = 1024 * 1024;
/** Headers of the signature, ours and GitHub's (the same `sha256=<hex>` form). */
export const SIGNATURE_HEADERS = ['x-workflow-signature', 'x-hub-signature-256'] as const;

const optionalHeader = z.string().max(1000).optional();

export const ZTriggerAccepted = named(
  'WorkflowTriggerAccepted',
  z.object({
    accepted: z.literal(true),
    executionId: z.string(),
    correlationId: z.string(),
    deduplicated: z.boolean().describe('True when the event ID was seen before: `executionId` is the run it started then.'),
  }),
);
export const ZTriggerIgnored = named('WorkflowTriggerIgnored', z.object({ accepted: z.literal(false), reason: z.literal('event-ignored') }));

export const inboundWorkflowTrigger = rawOperation({
  path: '/v2/workflow/triggers/inbound/:definitionId',
  summary: 'Inbound Workflow Trigger',
  description: [
    'Starts a run of the definition from a third party\'s POST (GitHub, a CI, your backend): the body is the sender\'s own JSON object, **not** wrapped in `data`, and becomes the run\'s `triggerContext`; the run gets the definition\'s scope (its organization and document), whatever the body says.',
    '',
    '**Authentication.** `x-service-api-key` (or `?apiKey=` for senders that cannot set headers; the header wins) names the application, with no auth token. The request is authenticated by `x-workflow-signature: sha256=<hex>` (or GitHub\'s `x-hub-signature-256`, same form): the HMAC-SHA256 of the exact body bytes with the trigger\'s secret as key. PERMISSION_DENIED (`signature does not match`) without a valid signature; UNAUTHENTICATED without an API key.',
    '',
    '**Which trigger.** `?triggerId=`, or the definition\'s only trigger with `inboundWebhook` (INVALID_ARGUMENT when it has several and none is named). NOT_FOUND for an unknown definition or one without that trigger; FAILED_PRECONDITION for a tombstoned one.',
    '',
    '**Events.** With `allowedEvents`, the event name (the `x-workflow-event` header, else `x-github-event`, else the body\'s string `type`) must be one of them: otherwise the answer is `{accepted: false, reason: "event-ignored"}` (200) and no run starts.',
    '',
    '**Redeliveries.** The sender\'s event ID (at `idempotencyBodyPath`, else the `webhook-id`, `idempotency-key` or `x-github-delivery` header) makes the run\'s idempotency key `trig:<definitionId>:<triggerId>:<id>`: a redelivery answers the same execution with `deduplicated: true`.',
    '',
    `The body: a JSON object up to ${MAX_INBOUND_BODY_BYTES} bytes (INVALID_ARGUMENT beyond), with the checks every request body gets (no NUL, no lone surrogate, no \`__proto__\` key), and at most 64 KB once stored as the run's triggerContext.`,
  ].join('\n'),
  auth: 'signedBody',
  pathParams: z.object({ definitionId: ZDefinitionId }).strict(),
  query: z
    .object({
      apiKey: z.string().min(1).max(256).optional().describe('The application\'s API key, for senders that cannot set `x-service-api-key` (the header wins).'),
      triggerId: z.string().min(1).max(128).optional().describe('The trigger; default the definition\'s only inbound trigger.'),
    })
    .strict(),
  headers: z.object({
    'x-service-api-key': optionalHeader.describe('The application\'s API key (or `?apiKey=`).'),
    'x-workflow-signature': optionalHeader.describe('`sha256=<hex>`: HMAC-SHA256 of the raw body with the trigger\'s secret.'),
    'x-hub-signature-256': optionalHeader.describe('GitHub\'s name for the same signature.'),
    'x-workflow-event': optionalHeader.describe('The event name `allowedEvents` is checked against.'),
    'x-github-event': optionalHeader.describe('GitHub\'s event name, when `x-workflow-event` is absent.'),
    'webhook-id': optionalHeader.describe('The sender\'s event ID (when the trigger has no `idempotencyBodyPath`).'),
    'idempotency-key': optionalHeader.describe('The same, when `webhook-id` is absent.'),
    'x-github-delivery': optionalHeader.describe('GitHub\'s delivery ID, when neither is present.'),
  }),
  body: z.record(z.unknown()).describe('The sender\'s JSON object, as it sends it.'),
  result: resultOf(z.union([ZTriggerAccepted, ZTriggerIgnored])),
  example: {
    params: { definitionId: 'q3-plan-signoff' },
    query: { triggerId: 'ci-build' },
    headers: { 'x-workflow-signature': 'sha256=3f1c0e6a9d0b4c27e5c1f0a4b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9', 'x-workflow-event': 'push', 'webhook-id': 'evt_7Hq2' },
    data: { type: 'push', ref: 'refs/heads/main', pageUrl: 'https://www.example.com/q3-plan' },
    result: {
      status: 'success',
      message: 'Workflow trigger accepted.',
      data: { accepted: true, executionId: 'wfx_01JDQ3M8X9T2V5B8A7C4E6G0RN', correlationId: 'wfx_01JDQ3M8X9T2V5B8A7C4E6G0RN', deduplicated: false },
    },
  },
});
