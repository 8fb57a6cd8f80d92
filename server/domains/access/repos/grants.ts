import { upsertMany } from '../../../db/bulk.js';
import { directReadsOf, type Db } from '../../../db/client.js';
import { rawParams } from '../../../db/raw-params.js';
import { afterMs, type Cursor } from '../../../db/keyset.js';
import type { Clock } from '../../../lib/clock.js';
import { created } from './times.js';
import { columnList, selectRows } from '../../../db/direct-select.js';
import type { RowOf } from '../../../db/direct-reads.js';

export type ResourceType = 'organization' | 'folder' | 'document';
export type PrincipalType = 'user' | 'group';

export interface GrantRow {
  resourceType: ResourceType;
  resourceId: string;
  principalType: PrincipalType;
  principalId: string;
  accessRole: 'viewer' | 'editor';
  expiresAt: number | null;
  /** Feature-level access context of a document grant; empty when it has none (and on other grants). */
  accessFields: string[];
}

/** Which grants an update or delete touches: one principal, or several at once. */
type GrantFilter = Omit<GrantRow, 'accessRole' | 'expiresAt' | 'accessFields' | 'principalId'> & { principalId: string | { in: string[] } };

/** Expiry is a 64-bit column (read as bigint); Unix seconds fit a JS number exactly. */
const seconds = (value: bigint | null): number | null => (value === null ? null : Number(value));

/** Access fields are stored as a JSON array of strings, null when there are none. */
const fieldsText = (fields: string[]): string | null => (fields.length > 0 ? JSON.stringify(fields) : null);
function fieldsOf(text: string | null): string[] {
  if (text === null) return [];
  const parsed = JSON.parse(text) as unknown;
  return Array.isArray(parsed) ? parsed.filter((f): f is string => typeof f === 'string') : [];
}

const GRANT_COLUMNS = {
  resourceType: 'text',
  resourceId: 'text',
  principalType: 'text',
  principalId: 'text',
  accessRole: 'text',
  expiresAt: 'bigint?',
  accessFields: 'text?',
} as const;
const grantRowOf = (g: { resourceType: string; resourceId: string; principalType: string; principalId: string; accessRole: string; expiresAt: bigint | null; accessFields: string | null }) =>
  ({ ...g, expiresAt: seconds(g.expiresAt), accessFields: fieldsOf(g.accessFields) }) as GrantRow;

/** The grants of `rows` that have not lapsed at `nowSeconds` (a lapse is `expiresAt` not after now), as GrantRows. */
const liveGrants = (rows: RowOf<typeof GRANT_COLUMNS>[], nowSeconds: number): GrantRow[] =>
  rows.filter((g) => g.expiresAt === null || Number(g.expiresAt) > nowSeconds).map(grantRowOf);

const GRANT_KEY = ['apiKeyId', 'organizationId', 'resourceType', 'resourceId', 'principalType', 'principalId'] as const;

function pick(grant: GrantRow) {
  return { resourceType: grant.resourceType, resourceId: grant.resourceId, principalType: grant.principalType, principalId: grant.principalId };
}

/** Grants of users and groups on organizations, folders and documents; scoped by application like every access repo. */
export function createGrantsRepo(db: Db, clock: Clock) {
  return {
    /**
     * Membership from Add Users: permanent; the role changes only when one is
     * given (a new member without one is an editor).
     */
    addMembers: async (
      apiKeyId: string,
      organizationId: string,
      resource: { type: ResourceType; id: string },
      members: { userId: string; accessRole: string | undefined }[],
    ) => {
      const at = BigInt(clock.nowMs());
      const row = (m: { userId: string; accessRole: string | undefined }) => ({
        apiKeyId,
        organizationId,
        resourceType: resource.type,
        resourceId: resource.id,
        principalType: 'user',
        principalId: m.userId,
        accessRole: m.accessRole ?? 'editor',
        expiresAt: null,
        createdAt: at,
        updatedAt: at,
      });
      const withRole = members.filter((m) => m.accessRole !== undefined).map(row);
      const keepingRole = members.filter((m) => m.accessRole === undefined).map(row);
      await upsertMany(db, 'Grant', withRole, { key: GRANT_KEY, update: ['accessRole', 'expiresAt', 'updatedAt'] });
      await upsertMany(db, 'Grant', keepingRole, { key: GRANT_KEY, update: ['expiresAt', 'updatedAt'] });
    },

    upsertGrant: (apiKeyId: string, organizationId: string, grant: GrantRow) =>
      db.grant.upsert({
        where: { apiKeyId_organizationId_resourceType_resourceId_principalType_principalId: { apiKeyId, organizationId, ...pick(grant) } },
        create: { apiKeyId, organizationId, ...grant, accessFields: fieldsText(grant.accessFields), ...created(clock) },
        update: { accessRole: grant.accessRole, expiresAt: grant.expiresAt, accessFields: fieldsText(grant.accessFields), updatedAt: BigInt(clock.nowMs()) },
      }),

    /** Changes the role of existing grants only; returns how many there were. */
    updateGrantRole: (apiKeyId: string, organizationId: string, key: GrantFilter, accessRole: string) =>
      db.grant.updateMany({ where: { apiKeyId, organizationId, ...key }, data: { accessRole, updatedAt: BigInt(clock.nowMs()) } }),

    deleteGrants: (apiKeyId: string, organizationId: string, where: Partial<GrantFilter>) =>
      db.grant.deleteMany({ where: { apiKeyId, organizationId, ...where } }),

    /** Which of these principals hold any grant in the organization (or on one resource of it), lapsed or not. */
    grantHolders: (
      apiKeyId: string,
      organizationId: string,
      principalType: PrincipalType,
      principalIds: string[],
      on?: { resourceType: ResourceType; resourceId: string },
    ) =>
      db.grant.findMany({
        where: { apiKeyId, organizationId, principalType, principalId: { in: principalIds }, ...on },
        select: { principalId: true },
        distinct: ['principalId'],
      }),

    /** Grants of these principals in one organization that have not lapsed. */
    // Direct (db/direct-reads.ts): Get Permissions reads it on every call. One read per principal type;
    // a lapsed grant is dropped here rather than in SQL (the same rows: a lapse is `expiresAt` not after now).
    liveGrantsOf: async (apiKeyId: string, organizationId: string, principals: { type: PrincipalType; ids: string[] }[], nowSeconds: number) => {
      const rows = [];
      for (const p of principals) {
        if (p.ids.length === 0) continue;
        rows.push(...(await selectRows(db, { from: 'Grant', columns: GRANT_COLUMNS, where: { apiKeyId, organizationId, principalType: p.type, principalId: { in: p.ids } } })));
      }
      return liveGrants(rows, nowSeconds);
    },

    /**
     * Live grants on one document and on what it takes access from: the
     * organization and the given folders (its folder and that folder's
     * ancestors). Only these principals' grants when `principals` is given,
     * everyone's otherwise.
     */
    liveGrantsOnDocument: async (
      apiKeyId: string,
      organizationId: string,
      on: { folderIds: string[]; documentId: string },
      principals: { type: PrincipalType; ids: string[] }[] | undefined,
      nowSeconds: number,
    ): Promise<GrantRow[]> => {
      const asked = principals?.filter((p) => p.ids.length > 0);
      if (asked !== undefined && asked.length === 0) return [];
      // Direct (db/direct-reads.ts): every access check on a document reads it. Placeholders are bound in the text's order.
      const { params, bind } = rawParams(db);
      let sql = `SELECT ${columnList(GRANT_COLUMNS)} FROM "Grant" WHERE "apiKeyId" = ${bind(apiKeyId)} AND "organizationId" = ${bind(organizationId)}`;
      sql += ` AND (("resourceType" = 'organization' AND "resourceId" = ${bind(organizationId)}) OR ("resourceType" = 'document' AND "resourceId" = ${bind(on.documentId)})`;
      if (on.folderIds.length > 0) sql += ` OR ("resourceType" = 'folder' AND "resourceId" IN (${on.folderIds.map(bind).join(', ')}))`;
      sql += ')';
      if (asked !== undefined) sql += ` AND (${asked.map((p) => `("principalType" = ${bind(p.type)} AND "principalId" IN (${p.ids.map(bind).join(', ')}))`).join(' OR ')})`;
      const rows = await directReadsOf(db).rows(GRANT_COLUMNS, sql, params);
      return liveGrants(rows, nowSeconds);
    },

    /** Live user members of one resource, oldest membership first (the contact list). */
    membersOf: async (
      apiKeyId: string,
      organizationId: string,
      resource: { type: ResourceType; id: string },
      q: { userIds?: string[]; after?: Cursor; take: number; nowSeconds: number },
    ) => {
      // Through afterMs, like every other list: its bare range on createdAt lets the database seek in
      // Grant_members_idx (with the OR alone it read and sorted every member of the resource on every page).
      const cursor = afterMs(q.after, { id: 'principalId' });
      const rows = await db.grant.findMany({
        where: {
          apiKeyId,
          organizationId,
          resourceType: resource.type,
          resourceId: resource.id,
          principalType: 'user',
          ...(q.userIds ? { principalId: { in: q.userIds } } : {}),
          AND: [{ OR: [{ expiresAt: null }, { expiresAt: { gt: q.nowSeconds } }] }, cursor],
        },
        orderBy: [{ createdAt: 'asc' }, { principalId: 'asc' }],
        take: q.take,
      });
      return rows.map((g) => ({ ...g, expiresAt: seconds(g.expiresAt) }));
    },

    // ── owned data (../owned-data.ts) ──
    /** A document's grants follow it to its new ID. */
    moveDocumentGrants: async (apiKeyId: string, organizationId: string, from: string, to: string): Promise<void> => {
      await db.grant.updateMany({ where: { apiKeyId, organizationId, resourceType: 'document', resourceId: from }, data: { resourceId: to, updatedAt: BigInt(clock.nowMs()) } });
    },
    deleteDocumentGrants: async (apiKeyId: string, organizationId: string, documentIds: readonly string[]): Promise<void> => {
      await db.grant.deleteMany({ where: { apiKeyId, organizationId, resourceType: 'document', resourceId: { in: [...documentIds] } } });
    },
    deleteOrganizationGrants: async (apiKeyId: string, organizationId: string): Promise<void> => {
      await db.grant.deleteMany({ where: { apiKeyId, organizationId } });
    },
    /** A user's grants in every organization of the application. */
    deleteUserGrants: async (apiKeyId: string, userId: string): Promise<void> => {
      await db.grant.deleteMany({ where: { apiKeyId, principalType: 'user', principalId: userId } });
    },
  };
}

export type GrantsRepo = ReturnType<typeof createGrantsRepo>;
