import type { Db } from '../../../db/client.js';
import { idMap } from '../../../lib/id-map.js';
import { afterMs, byCreation, type Cursor } from '../../../db/keyset.js';

/**
 * Webhook endpoints: created, listed, changed and deleted under their
 * application (apiKeyId), their signing secrets, and the filters the fan-out
 * matches events against. Times leave as Unix milliseconds and list columns
 * parsed: how they are stored (BigInt, JSON text) stays here. What delivery
 * writes on an endpoint (its rate window, disabling it after failures) is in
 * delivery-queue.ts.
 */

export interface EndpointRecord {
  id: string;
  url: string;
  description: string;
  /** Null: every event type. */
  filterTypes: string[] | null;
  /** Null: every channel. */
  channels: string[] | null;
  disabled: boolean;
  rateLimit: number | null;
  uid: string | null;
  /** Caller-chosen keys: a null-prototype map. */
  metadata: Record<string, string>;
  createdAt: number;
  updatedAt: number;
}

export interface NewEndpoint {
  id: string;
  apiKeyId: string;
  url: string;
  description: string;
  filterTypes: readonly string[] | null;
  channels: readonly string[] | null;
  disabled: boolean;
  rateLimit: number | null;
  uid: string | null;
  metadata: Record<string, string>;
  secretSealed: string;
  createdAt: number;
}

/** Fields to change; an absent one is left as it is. */
export type EndpointPatch = Partial<Pick<NewEndpoint, 'url' | 'description' | 'filterTypes' | 'channels' | 'disabled' | 'rateLimit' | 'uid' | 'metadata'>>;

/** What the fan-out needs of an endpoint. */
export interface EndpointFilter {
  id: string;
  filterTypes: string[] | null;
  channels: string[] | null;
}

/** A de-duplicated list, stored as JSON; null stays null (all). */
const listColumn = (values: readonly string[] | null) => (values === null ? null : JSON.stringify([...new Set(values)]));
const listOf = (column: string | null) => (column === null ? null : (JSON.parse(column) as string[]));

function toEndpoint(row: {
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
}): EndpointRecord {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    filterTypes: listOf(row.filterTypes),
    channels: listOf(row.channels),
    disabled: row.disabled,
    rateLimit: row.rateLimit,
    uid: row.uid,
    metadata: Object.assign(idMap<string>(), JSON.parse(row.metadata) as Record<string, string>),
    createdAt: Number(row.createdAt),
    updatedAt: Number(row.updatedAt),
  };
}

/** The columns an endpoint record is read from: never its secrets. */
const ENDPOINT_FIELDS = {
  id: true,
  url: true,
  description: true,
  filterTypes: true,
  channels: true,
  disabled: true,
  rateLimit: true,
  uid: true,
  metadata: true,
  createdAt: true,
  updatedAt: true,
} as const;

export function createWebhookEndpointsRepo(db: Db) {
  return {
    async findEndpoint(apiKeyId: string, endpointId: string): Promise<EndpointRecord | null> {
      const row = await db.webhookEndpoint.findFirst({ where: { id: endpointId, apiKeyId }, select: ENDPOINT_FIELDS });
      return row === null ? null : toEndpoint(row);
    },

    /** The endpoint's sealed signing secret, or null when the application has no such endpoint. */
    async sealedSecretOf(apiKeyId: string, endpointId: string): Promise<string | null> {
      const row = await db.webhookEndpoint.findFirst({ where: { id: endpointId, apiKeyId }, select: { secretSealed: true } });
      return row?.secretSealed ?? null;
    },

    async createEndpoint(input: NewEndpoint): Promise<EndpointRecord> {
      const at = BigInt(input.createdAt);
      const row = await db.webhookEndpoint.create({
        data: {
          id: input.id,
          apiKeyId: input.apiKeyId,
          url: input.url,
          description: input.description,
          filterTypes: listColumn(input.filterTypes),
          channels: listColumn(input.channels),
          disabled: input.disabled,
          rateLimit: input.rateLimit,
          uid: input.uid,
          metadata: JSON.stringify(input.metadata),
          secretSealed: input.secretSealed,
          createdAt: at,
          updatedAt: at,
        },
        select: ENDPOINT_FIELDS,
      });
      return toEndpoint(row);
    },

    /** The application's endpoints in (createdAt, id) order after `after`. */
    async listEndpoints(apiKeyId: string, after: Cursor | undefined, take: number): Promise<EndpointRecord[]> {
      const rows = await db.webhookEndpoint.findMany({
        where: { apiKeyId, ...afterMs(after) },
        orderBy: byCreation(),
        take,
        select: ENDPOINT_FIELDS,
      });
      return rows.map(toEndpoint);
    },

    /** Changes an endpoint found under its application (findEndpoint). */
    async updateEndpoint(endpointId: string, patch: EndpointPatch, updatedAt: number): Promise<EndpointRecord> {
      const row = await db.webhookEndpoint.update({
        where: { id: endpointId },
        data: {
          ...(patch.url === undefined ? {} : { url: patch.url }),
          ...(patch.description === undefined ? {} : { description: patch.description }),
          ...(patch.filterTypes === undefined ? {} : { filterTypes: listColumn(patch.filterTypes) }),
          ...(patch.channels === undefined ? {} : { channels: listColumn(patch.channels) }),
          ...(patch.disabled === undefined ? {} : { disabled: patch.disabled }),
          ...(patch.rateLimit === undefined ? {} : { rateLimit: patch.rateLimit }),
          ...(patch.uid === undefined ? {} : { uid: patch.uid }),
          ...(patch.metadata === undefined ? {} : { metadata: JSON.stringify(patch.metadata) }),
          updatedAt: BigInt(updatedAt),
        },
        select: ENDPOINT_FIELDS,
      });
      return toEndpoint(row);
    },

    /** Whether the application had the endpoint (its deliveries and attempts go with it). */
    async deleteEndpoint(apiKeyId: string, endpointId: string): Promise<boolean> {
      const { count } = await db.webhookEndpoint.deleteMany({ where: { id: endpointId, apiKeyId } });
      return count > 0;
    },

    /** Compare-and-set of the signing secret: false when it is no longer `expected` (another rotation came first). */
    /** `expected` is the stored secret as read; `previous` what to keep of it (the same secret, perhaps sealed again). */
    async replaceSecret(endpointId: string, change: { expected: string; previous: string | null; next: string; previousUntil: number; at: number }): Promise<boolean> {
      const { count } = await db.webhookEndpoint.updateMany({
        where: { id: endpointId, secretSealed: change.expected },
        data: { secretSealed: change.next, previousSecretSealed: change.previous, previousSecretUntil: BigInt(change.previousUntil), updatedAt: BigInt(change.at) },
      });
      return count === 1;
    },

    /** The application's enabled endpoints, as the fan-out matches them. */
    async enabledEndpointFilters(apiKeyId: string): Promise<EndpointFilter[]> {
      const rows = await db.webhookEndpoint.findMany({ where: { apiKeyId, disabled: false }, select: { id: true, filterTypes: true, channels: true } });
      return rows.map((row) => ({ id: row.id, filterTypes: listOf(row.filterTypes), channels: listOf(row.channels) }));
    },
  };
}

export type WebhookEndpointsRepo = ReturnType<typeof createWebhookEndpointsRepo>;
