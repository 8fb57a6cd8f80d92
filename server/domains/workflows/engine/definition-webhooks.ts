import type { Logger } from 'pino';
import { z } from 'zod';
import { WORKFLOW_EVENT_TYPES, type TWorkflowEvent } from '../../../../contract/workflows/schemas.js';
import type { Clock } from '../../../lib/clock.js';
import type { Sealer } from '../../../lib/crypto.js';
import { OutboundError, postBytes } from '../../../lib/outbound-http.js';
import type { DomainEvent } from '../../../platform/events.js';
import type { JobDef, Jobs } from '../../../platform/jobs.js';
import { MAX_TRIES, RETRY_SCHEDULE_MS } from '../../webhooks/delivery.js';
import { standardWebhookHeaders } from '../../webhooks/secrets.js';
import type { DefinitionsRepo } from '../repos/definitions.js';
import type { Runtimes } from './runtimes.js';

const USER_AGENT = 'Collab-Backend-Workflows/1.0';
/** Bytes of a receiver's answer read: only its status matters. */
const RESPONSE_READ_BYTES = 1024;

/** A definition's `webhookConfig` as it signs: the secret opened. */
export interface WebhookTarget {
  url: string;
  secret: string;
  eventTypes: readonly string[] | null;
}

/** The headers of a workflow's request: ours, and the Standard Webhooks ones (signed when there is a secret). */
export function workflowRequestHeaders(secret: string | null, messageId: string, at: Date, body: string): Record<string, string> {
  return { 'user-agent': USER_AGENT, 'content-type': 'application/json', ...standardWebhookHeaders(secret === null ? [] : [secret], messageId, at, body) };
}

const ZDelivery = z.object({ apiKeyId: z.string(), definitionId: z.string(), eventId: z.string(), body: z.string() });
type Delivery = z.infer<typeof ZDelivery>;

/**
 * A definition's `webhookConfig`: every event of its executions (those its
 * `eventTypes` take) is POSTed to its URL, signed the Standard Webhooks way
 * with its secret and retried on the advanced webhooks' schedule. A
 * projection on the workflow events writes one durable job per event in the
 * event's transaction (keyed by the event, so a re-publish never sends it
 * twice); the job sends the event JSON Get Workflow Execution Events shows.
 *
 * The definition's current version decides: its config when the event
 * happens (whether to send), and again at each try (where, and with which
 * secret), so a fixed URL or a replaced secret serves the retries too.
 */
export function createDefinitionWebhooks(deps: {
  definitions: DefinitionsRepo;
  runtimes: Runtimes;
  jobs: Jobs;
  sealer: Pick<Sealer, 'open'>;
  clock: Clock;
  log: Logger;
  allowPrivateUrls: boolean;
  timeoutMs: number;
  /** WEBHOOK_RETRY_SCALE: the advanced webhooks' schedule, scaled alike. */
  retryScale: number;
}) {
  async function target(apiKeyId: string, definitionId: string): Promise<WebhookTarget | null> {
    const head = await deps.definitions.find(apiKeyId, definitionId);
    if (head === null) return null;
    const config = (await deps.runtimes.of(apiKeyId, definitionId, head.version)).body.webhookConfig;
    if (config === null) return null;
    return { url: config.url, secret: deps.sealer.open(config.secret), eventTypes: config.eventTypes ?? null };
  }

  async function deliver(job: Delivery): Promise<void> {
    const to = await target(job.apiKeyId, job.definitionId);
    // The definition dropped its webhookConfig (or was purged) since: nothing to send to any more.
    if (to === null) return;
    const at = deps.clock.now();
    const headers = workflowRequestHeaders(to.secret, job.eventId, at, job.body);
    let status: number;
    try {
      ({ status } = await postBytes(to.url, Buffer.from(job.body, 'utf8'), { headers, timeoutMs: deps.timeoutMs, allowPrivate: deps.allowPrivateUrls, maxResponseBytes: RESPONSE_READ_BYTES, truncateResponse: true }));
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      if (error.kind === 'blocked' || error.kind === 'network') deps.log.warn({ definitionId: job.definitionId, eventId: job.eventId, ...error.detail }, `workflow webhook delivery failed: ${error.message}`);
      // Thrown: the job's schedule tries again. The message is safe to keep on the job (it names the host at most).
      throw new Error(`workflow webhook delivery failed: ${error.message}`);
    }
    // 2xx only: a redirect is a failure (following it would skip the address guard).
    if (status < 200 || status >= 300) throw new Error(`workflow webhook delivery failed: the receiver answered ${status}`);
  }

  let delivery: JobDef<Delivery> | undefined;

  /** The projection: an event of an execution whose definition has a webhookConfig that takes its type becomes a delivery job. */
  async function project(raw: DomainEvent): Promise<void> {
    const event = raw.payload as TWorkflowEvent;
    const head = await deps.definitions.find(raw.apiKeyId, event.definitionId);
    if (head === null) return;
    const config = (await deps.runtimes.of(raw.apiKeyId, event.definitionId, head.version)).body.webhookConfig;
    if (config === null || (config.eventTypes !== undefined && !config.eventTypes.includes(event.type))) return;
    const body = JSON.stringify(event);
    await deps.jobs.enqueue(delivery!, { apiKeyId: raw.apiKeyId, definitionId: event.definitionId, eventId: event.eventId, body }, { apiKeyId: raw.apiKeyId, key: `wf-hook:${event.eventId}` });
  }

  return {
    /** Defined with the other jobs (services.ts order: before any event is published). */
    define(jobs: Jobs) {
      delivery = jobs.define<Delivery>({
        kind: 'workflow-webhook-delivery',
        payload: ZDelivery,
        concurrency: 4,
        leaseMs: deps.timeoutMs * 2 + 5_000,
        maxAttempts: MAX_TRIES,
        retryIn: (attempt) => Math.round(RETRY_SCHEDULE_MS[Math.min(attempt, RETRY_SCHEDULE_MS.length) - 1]! * deps.retryScale),
        run: ({ payload }) => deliver(payload),
        failed: async (payload, reason) => deps.log.warn({ definitionId: payload.definitionId, eventId: payload.eventId, reason }, 'workflow webhook delivery failed for good'),
      });
    },
    project,
    types: WORKFLOW_EVENT_TYPES,
    target,
  };
}

export type DefinitionWebhooks = ReturnType<typeof createDefinitionWebhooks>;
