import { EXHAUSTED_EVENT, eventChannels, eventParts, type TWebhookPayload } from '../../../contract/webhooks/payload.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Clock } from '../../lib/clock.js';
import type { Ids } from '../../lib/ids.js';
import type { DomainEvent, Projection } from '../../platform/events.js';
import type { EndpointFilter, WebhookEndpointsRepo } from './repos/endpoints.js';
import type { WebhookMessagesRepo } from './repos/messages.js';
import type { WebhookSettings } from './settings.js';

const KEYLESS_METADATA = '"metadata":{"apiKey":""';

/**
 * A stored body as sent: with the application's API key in
 * `metadata.apiKey`. `metadata` is the body's last key, so the last
 * occurrence of the keyless form is the body's own (event data comes before
 * it). The same key always gives the same bytes.
 */
export function withApiKey(body: string, apiKey: string): string {
  const at = body.lastIndexOf(KEYLESS_METADATA);
  if (at < 0) return body;
  return `${body.slice(0, at)}"metadata":{"apiKey":${JSON.stringify(apiKey)}${body.slice(at + KEYLESS_METADATA.length)}`;
}

/** Whether an endpoint takes a message of `type` on `channels` (absent filters mean all). */
export function endpointWants(endpoint: EndpointFilter, type: string, channels: readonly string[]): boolean {
  if (endpoint.filterTypes !== null && !endpoint.filterTypes.includes(type)) return false;
  const wanted = endpoint.channels;
  if (wanted !== null && !channels.some((channel) => wanted.includes(channel))) return false;
  return true;
}

export interface NewMessage {
  apiKeyId: string;
  eventType: string;
  eventId: string | null;
  organizationId: string | null;
  documentId: string | null;
  data: Record<string, unknown>;
  /** Unix ms. */
  occurredAt: number;
}

/**
 * Messages and their per-endpoint deliveries, written in the unit of work of
 * the change that caused them: a change that rolls back sends nothing, and a
 * committed one always has its deliveries (the dispatcher picks them up, woken
 * after the commit or by its poll).
 */
export function createWebhookMessages(deps: {
  repo: WebhookMessagesRepo;
  /** Only for the enabled endpoints' filters. */
  endpointsRepo: WebhookEndpointsRepo;
  uow: UnitOfWork;
  ids: Ids;
  clock: Clock;
  settings: WebhookSettings;
  /** Called after a commit that created deliveries. */
  wake(): void;
}) {
  const { repo, ids, clock } = deps;

  /** Writes the message with its exact body; returns its ID. */
  async function writeMessage(input: NewMessage): Promise<string> {
    const id = ids.next('msg');
    const { source, actionType } = eventParts(input.eventType);
    const payload: TWebhookPayload = {
      event: input.eventType,
      actionType,
      source,
      data: input.data,
      webhookId: id,
      timestamp: input.occurredAt,
      // The key goes in when the body is sent (withApiKey): stored bodies never hold a credential.
      metadata: { apiKey: '', organizationId: input.organizationId, documentId: input.documentId },
    };
    await repo.createMessage({
      id,
      apiKeyId: input.apiKeyId,
      eventType: input.eventType,
      eventId: input.eventId,
      organizationId: input.organizationId,
      documentId: input.documentId,
      payload,
      createdAt: input.occurredAt,
    });
    return id;
  }

  async function addDeliveries(apiKeyId: string, messageId: string, endpointIds: readonly string[]): Promise<void> {
    if (endpointIds.length === 0) return;
    const deliveries = endpointIds.map((endpointId) => ({ id: ids.next('dlv'), endpointId }));
    await repo.createDeliveries(apiKeyId, messageId, deliveries, clock.nowMs());
    deps.uow.afterCommit(() => deps.wake());
  }

  /** The '*' projection: every event of an application with advanced webhooks on becomes one message for the endpoints that want it. */
  const projection: Projection = async (event: DomainEvent) => {
    if (!(await deps.settings.isEnabled(event.apiKeyId))) return;
    const endpoints = await deps.endpointsRepo.enabledEndpointFilters(event.apiKeyId);
    const channels = eventChannels(event.organizationId, event.documentId);
    // A report about an endpoint's failures is not sent to that endpoint: it could not take it either.
    const about = event.type === EXHAUSTED_EVENT ? (event.payload as { endpointId: string }).endpointId : undefined;
    const targets = endpoints.filter((endpoint) => endpoint.id !== about && endpointWants(endpoint, event.type, channels));
    // No endpoint wants it: no message (nothing could ever list, send or resend it).
    if (targets.length === 0) return;
    const data: Record<string, unknown> = { ...(event.payload as Record<string, unknown>) };
    if (event.actor !== null) data.actionUser = event.actor;
    const messageId = await writeMessage({
      apiKeyId: event.apiKeyId,
      eventType: event.type,
      eventId: event.id,
      organizationId: event.organizationId,
      documentId: event.documentId,
      data,
      occurredAt: event.occurredAt,
    });
    await addDeliveries(event.apiKeyId, messageId, targets.map((endpoint) => endpoint.id));
  };

  return {
    projection,

    /** A message for one endpoint only (Send Test Event); call inside a unit of work. */
    async createForEndpoint(input: Omit<NewMessage, 'eventId' | 'organizationId' | 'documentId'> & { endpointId: string }): Promise<string> {
      const messageId = await writeMessage({ ...input, eventId: null, organizationId: null, documentId: null });
      await addDeliveries(input.apiKeyId, messageId, [input.endpointId]);
      return messageId;
    },
  };
}

export type WebhookMessages = ReturnType<typeof createWebhookMessages>;
