import type { DataOf } from '../../../../contract/common/envelope.js';
import type { updateAdvancedWebhookConfig } from '../../../../contract/webhooks/config.js';
import type { createWebhookEndpoint, getWebhookEndpoints, sendWebhookTestEvent, updateWebhookEndpoint } from '../../../../contract/webhooks/endpoints.js';
import { TEST_EVENT } from '../../../../contract/webhooks/payload.js';
import type { TWebhookEndpoint } from '../../../../contract/webhooks/schemas.js';
import { isUniqueViolation } from '../../../db/errors.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import { alreadyExists, failedPrecondition, invalidArgument, notFound } from '../../../lib/app-error.js';
import type { Clock } from '../../../lib/clock.js';
import type { Sealer } from '../../../lib/crypto.js';
import type { Ids } from '../../../lib/ids.js';
import { assertAllowedUrl, type OutboundLog } from '../../../lib/outbound-http.js';
import { pageScope } from '../../../lib/page-scope.js';
import type { PageTokens } from '../../../lib/page-token.js';
import type { WebhookMessages } from '../messages.js';
import type { EndpointRecord, WebhookEndpointsRepo } from '../repos/endpoints.js';
import { newSigningSecret } from '../secrets.js';
import type { WebhookSettings } from '../settings.js';

/** After a rotation, the previous secret signs alongside the new one this long. */
export const PREVIOUS_SECRET_MS = 24 * 3_600_000;

/** Unix milliseconds as ISO 8601, as the webhook records show times. */
export const iso = (ms: bigint | number) => new Date(Number(ms)).toISOString();

function toEndpoint(record: EndpointRecord): TWebhookEndpoint {
  return { ...record, createdAt: iso(record.createdAt), updatedAt: iso(record.updatedAt) };
}

/** Advanced webhook configuration and endpoints of the calling application. */
export function createWebhookEndpoints(deps: {
  repo: WebhookEndpointsRepo;
  uow: UnitOfWork;
  ids: Ids;
  clock: Clock;
  sealer: Sealer;
  settings: WebhookSettings;
  messages: WebhookMessages;
  pageTokens: PageTokens;
  allowPrivateUrls: boolean;
  log: OutboundLog;
}) {
  const { repo, sealer, clock } = deps;
  const checkUrl = (url: string) => assertAllowedUrl(url, { allowPrivate: deps.allowPrivateUrls, log: deps.log });
  const unknown = (endpointId: string) => notFound(`no webhook endpoint ${endpointId}`);

  async function find(apiKeyId: string, endpointId: string): Promise<EndpointRecord> {
    // Another application's endpoint reads exactly like an unknown one.
    const endpoint = await repo.findEndpoint(apiKeyId, endpointId);
    if (endpoint === null) throw unknown(endpointId);
    return endpoint;
  }

  async function sealedSecret(apiKeyId: string, endpointId: string): Promise<string> {
    const sealed = await repo.sealedSecretOf(apiKeyId, endpointId);
    if (sealed === null) throw unknown(endpointId);
    return sealed;
  }

  const uidTaken = (uid: string | null | undefined) => alreadyExists(`another webhook endpoint of this application has uid "${uid}"`);

  /**
   * The stored secret kept as the previous one: under the sealing key (a master-key rotation may be
   * under way), or none when no key opens it: rotating is how such a secret is replaced.
   */
  const keptOrNull = (sealed: string): string | null => {
    try {
      return sealer.current(sealed);
    } catch {
      return null;
    }
  };

  return {
    find,

    async config(apiKeyId: string) {
      return { isEnabled: await deps.settings.isEnabled(apiKeyId) };
    },

    async updateConfig(apiKeyId: string, input: DataOf<typeof updateAdvancedWebhookConfig>) {
      return { isEnabled: await deps.settings.setEnabled(apiKeyId, input.isEnabled) };
    },

    async create(apiKeyId: string, input: DataOf<typeof createWebhookEndpoint>): Promise<TWebhookEndpoint> {
      if (!(await deps.settings.isEnabled(apiKeyId))) {
        throw failedPrecondition('advanced webhooks are disabled for this application: enable them with Update Advanced Webhook Config first');
      }
      await checkUrl(input.url);
      try {
        const endpoint = await repo.createEndpoint({
          id: deps.ids.next('ep'),
          apiKeyId,
          url: input.url,
          description: input.description ?? '',
          filterTypes: input.filterTypes ?? null,
          channels: input.channels ?? null,
          disabled: input.disabled ?? false,
          rateLimit: input.rateLimit ?? null,
          uid: input.uid ?? null,
          metadata: input.metadata ?? {},
          secretSealed: sealer.seal(newSigningSecret()),
          createdAt: clock.nowMs(),
        });
        return toEndpoint(endpoint);
      } catch (error) {
        if (isUniqueViolation(error)) throw uidTaken(input.uid);
        throw error;
      }
    },

    async list(apiKeyId: string, input: DataOf<typeof getWebhookEndpoints>) {
      if (input.endpointId !== undefined) {
        // One endpoint: a one-item page. No page of this query has a token, so any token is another query's.
        if (input.pageToken !== undefined) throw invalidArgument('pageToken is not valid for this request: a request with endpointId has a single page');
        return { items: [toEndpoint(await find(apiKeyId, input.endpointId))], pageToken: null };
      }
      const page = await deps.pageTokens.page(
        pageScope('webhook-endpoints', apiKeyId),
        input,
        (after, take) => repo.listEndpoints(apiKeyId, after, take),
        (endpoint) => ({ at: endpoint.createdAt, id: endpoint.id }),
      );
      return { items: page.items.map(toEndpoint), pageToken: page.pageToken };
    },

    async update(apiKeyId: string, input: DataOf<typeof updateWebhookEndpoint>): Promise<TWebhookEndpoint> {
      const stored = await find(apiKeyId, input.endpointId);
      // Only a new URL is checked: the stored one was checked when it was set (deliveries check it again).
      if (input.url !== undefined && input.url !== stored.url) await checkUrl(input.url);
      const { endpointId: _, ...patch } = input;
      try {
        return toEndpoint(await repo.updateEndpoint(stored.id, patch, clock.nowMs()));
      } catch (error) {
        if (isUniqueViolation(error)) throw uidTaken(input.uid);
        throw error;
      }
    },

    async remove(apiKeyId: string, endpointId: string) {
      if (!(await repo.deleteEndpoint(apiKeyId, endpointId))) throw unknown(endpointId);
      return { endpointId };
    },

    async secret(apiKeyId: string, endpointId: string) {
      return { endpointId, secret: sealer.open(await sealedSecret(apiKeyId, endpointId)) };
    },

    async rotateSecret(apiKeyId: string, endpointId: string) {
      const secret = newSigningSecret();
      for (;;) {
        const current = await sealedSecret(apiKeyId, endpointId);
        const now = clock.nowMs();
        // Compare-and-set on the secret read: of two rotations at once, the second keeps the first's secret as its previous one.
        // The previous secret is kept under the sealing key: a master-key rotation may be under way.
        const change = { expected: current, previous: keptOrNull(current), next: sealer.seal(secret) };
        if (await repo.replaceSecret(endpointId, { ...change, previousUntil: now + PREVIOUS_SECRET_MS, at: now })) return { endpointId, secret };
      }
    },
    async sendTest(apiKeyId: string, input: DataOf<typeof sendWebhookTestEvent>) {
      return deps.uow.run(async () => {
        const endpoint = await find(apiKeyId, input.endpointId);
        if (endpoint.disabled) throw failedPrecondition(`webhook endpoint ${endpoint.id} is disabled: enable it to send it events`);
        if (!(await deps.settings.isEnabled(apiKeyId))) throw failedPrecondition('advanced webhooks are disabled for this application');
        const messageId = await deps.messages.createForEndpoint({
          apiKeyId,
          endpointId: endpoint.id,
          eventType: input.eventType ?? TEST_EVENT,
          data: input.data ?? {},
          occurredAt: clock.nowMs(),
        });
        return { messageId, endpointId: endpoint.id };
      });
    },
  };
}

export type WebhookEndpoints = ReturnType<typeof createWebhookEndpoints>;
