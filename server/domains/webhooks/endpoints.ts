import type { z } from 'zod';
import type { createWebhookEndpoint, sendWebhookTestEvent, updateWebhookEndpoint } from '../../../contract/webhooks/endpoints.js';
import { TEST_EVENT } from '../../../contract/webhooks/payload.js';
import type { TWebhookEndpoint } from '../../../contract/webhooks/schemas.js';
import type { Db } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import { alreadyExists, failedPrecondition, invalidArgument, notFound } from '../../lib/app-error.js';
import type { Clock } from '../../lib/clock.js';
import type { Sealer } from '../../lib/crypto.js';
import type { Ids } from '../../lib/ids.js';
import { idMap } from '../../lib/id-map.js';
import { assertAllowedUrl, type OutboundLog } from '../../lib/outbound-http.js';
import { keysetAfter, type PageTokens } from '../../lib/page-token.js';
import type { WebhookMessages } from './messages.js';
import { newSigningSecret } from './secrets.js';
import type { WebhookSettings } from './settings.js';

type CreateInput = z.infer<typeof createWebhookEndpoint.body>['data'];
type UpdateInput = z.infer<typeof updateWebhookEndpoint.body>['data'];
type TestInput = z.infer<typeof sendWebhookTestEvent.body>['data'];

/** After a rotation, the previous secret signs alongside the new one this long. */
export const PREVIOUS_SECRET_MS = 24 * 3_600_000;

interface EndpointRow {
  id: string;
  url: string;
  description: string;
  filterTypes: string | null;
  channels: string | null;
  disabled: boolean;
  rateLimit: number | null;
  uid: string | null;
  metadata: string;
  createdAt: bigint;
  updatedAt: bigint;
}

/** Unix milliseconds as ISO 8601, as the webhook records show times. */
export const iso = (ms: bigint | number) => new Date(Number(ms)).toISOString();

function toEndpoint(row: EndpointRow): TWebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    filterTypes: row.filterTypes === null ? null : (JSON.parse(row.filterTypes) as string[]),
    channels: row.channels === null ? null : (JSON.parse(row.channels) as string[]),
    disabled: row.disabled,
    rateLimit: row.rateLimit,
    uid: row.uid,
    // Caller-chosen keys: a null-prototype map.
    metadata: Object.assign(idMap<string>(), JSON.parse(row.metadata) as Record<string, string>),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/** A de-duplicated list, stored as JSON; null stays null (all). */
const listColumn = (values: readonly string[] | null) => (values === null ? null : JSON.stringify([...new Set(values)]));

/** Advanced webhook configuration and endpoints of the calling application. */
export function createWebhookEndpoints(deps: {
  db: Db;
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
  const { db, sealer, clock } = deps;
  const checkUrl = (url: string) => assertAllowedUrl(url, { allowPrivate: deps.allowPrivateUrls, log: deps.log });

  async function find(apiKeyId: string, endpointId: string) {
    // Another application's endpoint reads exactly like an unknown one.
    const row = await db.webhookEndpoint.findFirst({ where: { id: endpointId, apiKeyId } });
    if (row === null) throw notFound(`no webhook endpoint ${endpointId}`);
    return row;
  }

  const uidTaken = (uid: string | null | undefined) => alreadyExists(`another webhook endpoint of this application has uid "${uid}"`);

  return {
    find,

    async config(apiKeyId: string) {
      return { isEnabled: await deps.settings.isEnabled(apiKeyId) };
    },

    async updateConfig(apiKeyId: string, input: { isEnabled: boolean }) {
      return { isEnabled: await deps.settings.setEnabled(apiKeyId, input.isEnabled) };
    },

    async create(apiKeyId: string, input: CreateInput): Promise<TWebhookEndpoint> {
      if (!(await deps.settings.isEnabled(apiKeyId))) {
        throw failedPrecondition('advanced webhooks are disabled for this application: enable them with Update Advanced Webhook Config first');
      }
      await checkUrl(input.url);
      const now = BigInt(clock.nowMs());
      try {
        const row = await db.webhookEndpoint.create({
          data: {
            id: deps.ids.next('ep'),
            apiKeyId,
            url: input.url,
            description: input.description ?? '',
            filterTypes: listColumn(input.filterTypes ?? null),
            channels: listColumn(input.channels ?? null),
            disabled: input.disabled ?? false,
            rateLimit: input.rateLimit ?? null,
            uid: input.uid ?? null,
            metadata: JSON.stringify(input.metadata ?? {}),
            secretSealed: sealer.seal(newSigningSecret()),
            createdAt: now,
            updatedAt: now,
          },
        });
        return toEndpoint(row);
      } catch (error) {
        if (isUniqueViolation(error)) throw uidTaken(input.uid);
        throw error;
      }
    },

    async list(apiKeyId: string, input: { endpointId?: string; pageSize?: number; pageToken?: string }) {
      if (input.endpointId !== undefined) {
        // One endpoint: a one-item page. No page of this query has a token, so any token is another query's.
        if (input.pageToken !== undefined) throw invalidArgument('pageToken is not valid for this request: a request with endpointId has a single page');
        return { items: [toEndpoint(await find(apiKeyId, input.endpointId))], pageToken: null };
      }
      const page = await deps.pageTokens.page(
        JSON.stringify(['webhook-endpoints', apiKeyId]),
        input,
        (after, take) =>
          db.webhookEndpoint.findMany({
            where: {
              apiKeyId,
              ...keysetAfter(after, BigInt),
            },
            orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
            take,
          }),
        (row) => ({ at: Number(row.createdAt), id: row.id }),
      );
      return { items: page.items.map(toEndpoint), pageToken: page.pageToken };
    },

    async update(apiKeyId: string, input: UpdateInput): Promise<TWebhookEndpoint> {
      const stored = await find(apiKeyId, input.endpointId);
      // Only a new URL is checked: the stored one was checked when it was set (deliveries check it again).
      if (input.url !== undefined && input.url !== stored.url) await checkUrl(input.url);
      try {
        const row = await db.webhookEndpoint.update({
          where: { id: stored.id },
          data: {
            ...(input.url === undefined ? {} : { url: input.url }),
            ...(input.description === undefined ? {} : { description: input.description }),
            ...(input.filterTypes === undefined ? {} : { filterTypes: listColumn(input.filterTypes) }),
            ...(input.channels === undefined ? {} : { channels: listColumn(input.channels) }),
            ...(input.disabled === undefined ? {} : { disabled: input.disabled }),
            ...(input.rateLimit === undefined ? {} : { rateLimit: input.rateLimit }),
            ...(input.uid === undefined ? {} : { uid: input.uid }),
            ...(input.metadata === undefined ? {} : { metadata: JSON.stringify(input.metadata) }),
            updatedAt: BigInt(clock.nowMs()),
          },
        });
        return toEndpoint(row);
      } catch (error) {
        if (isUniqueViolation(error)) throw uidTaken(input.uid);
        throw error;
      }
    },

    async remove(apiKeyId: string, endpointId: string) {
      const { count } = await db.webhookEndpoint.deleteMany({ where: { id: endpointId, apiKeyId } });
      if (count === 0) throw notFound(`no webhook endpoint ${endpointId}`);
      return { endpointId };
    },

    async secret(apiKeyId: string, endpointId: string) {
      const row = await find(apiKeyId, endpointId);
      return { endpointId: row.id, secret: sealer.open(row.secretSealed) };
    },

    async rotateSecret(apiKeyId: string, endpointId: string) {
      const secret = newSigningSecret();
      for (;;) {
        const row = await find(apiKeyId, endpointId);
        const now = clock.nowMs();
        // Compare-and-set on the secret read: of two rotations at once, the second keeps the first's secret as its previous one.
        const { count } = await db.webhookEndpoint.updateMany({
          where: { id: row.id, secretSealed: row.secretSealed },
          data: { secretSealed: sealer.seal(secret), previousSecretSealed: row.secretSealed, previousSecretUntil: BigInt(now + PREVIOUS_SECRET_MS), updatedAt: BigInt(now) },
        });
        if (count === 1) return { endpointId: row.id, secret };
      }
    },

    async sendTest(apiKeyId: string, input: TestInput) {
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
