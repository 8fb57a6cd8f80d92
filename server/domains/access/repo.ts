import { upsertMany } from '../../db/bulk.js';
import { providerOfClient, type Db } from '../../db/client.js';
import { keysetAfter, type Cursor } from '../../lib/page-token.js';

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

/** Rows after `after` in (createdAt, id) order: the keyset condition of every paged list. */
const after = (cursor: Cursor | undefined) => keysetAfter(cursor, (at) => new Date(at));

const byCreation = [{ createdAt: 'asc' as const }, { id: 'asc' as const }];

/** Expiry is a 64-bit column (read as bigint); Unix seconds fit a JS number exactly. */
const seconds = (value: bigint | null): number | null => (value === null ? null : Number(value));

/** Access fields are stored as a JSON array of strings, null when there are none. */
const fieldsText = (fields: string[]): string | null => (fields.length > 0 ? JSON.stringify(fields) : null);
function fieldsOf(text: string | null): string[] {
  if (text === null) return [];
  const parsed = JSON.parse(text) as unknown;
  return Array.isArray(parsed) ? parsed.filter((f): f is string => typeof f === 'string') : [];
}

const GRANT_READ = { resourceType: true, resourceId: true, principalType: true, principalId: true, accessRole: true, expiresAt: true, accessFields: true } as const;
const grantRowOf = (g: { resourceType: string; resourceId: string; principalType: string; principalId: string; accessRole: string; expiresAt: bigint | null; accessFields: string | null }) =>
  ({ ...g, expiresAt: seconds(g.expiresAt), accessFields: fieldsOf(g.accessFields) }) as GrantRow;

const GRANT_KEY = ['apiKeyId', 'organizationId', 'resourceType', 'resourceId', 'principalType', 'principalId'] as const;

/**
 * Data access for organizations, folders, documents, users, user groups and
 * grants. Every function takes the application (apiKeyId) first and puts it
 * into every query: tenancy is not something a caller can forget.
 * Functions that write several statements are called inside the service's
 * unit of work, which makes them atomic.
 */
export function createAccessRepo(db: Db) {
  return {
    // ── organizations ──
    findOrganization: (apiKeyId: string, id: string) => db.organization.findUnique({ where: { apiKeyId_id: { apiKeyId, id } } }),

    createOrganization: (apiKeyId: string, id: string, name: string) => db.organization.create({ data: { apiKeyId, id, name } }),

    /**
     * Creates the organization when missing; returns it either way. Race-safe
     * on both databases: `INSERT … ON CONFLICT DO NOTHING` (the ORM's upsert
     * is a read then an insert, whose unique violation on PostgreSQL aborts the
     * whole unit of work of all but one of several first requests at once).
     */
    ensureOrganization: async (apiKeyId: string, id: string) => {
      const at = new Date();
      await upsertMany(db, 'Organization', [{ apiKeyId, id, name: id, disabled: false, createdAt: at, updatedAt: at }], { key: ['apiKeyId', 'id'], update: [] });
      return db.organization.findUniqueOrThrow({ where: { apiKeyId_id: { apiKeyId, id } } });
    },

    listOrganizations: (apiKeyId: string, q: { ids?: string[]; after?: Cursor; take: number }) =>
      db.organization.findMany({
        where: { apiKeyId, ...(q.ids ? { id: { in: q.ids } } : {}), ...after(q.after) },
        orderBy: byCreation,
        take: q.take,
      }),

    updateOrganization: (apiKeyId: string, id: string, data: { name?: string; disabled?: boolean }) =>
      db.organization.update({ where: { apiKeyId_id: { apiKeyId, id } }, data }),

    /** The organization's structure; what it owns (documents, grants, content) goes through the owned-data registry. */
    deleteOrganization: async (apiKeyId: string, organizationId: string) => {
      const where = { apiKeyId, organizationId };
      await db.userGroup.deleteMany({ where });
      await db.folder.deleteMany({ where });
      await db.organization.deleteMany({ where: { apiKeyId, id: organizationId } });
    },

    /** Folders and documents that a grant or membership names are created when missing: at the top, organizationPrivate. */
    /** Race-safe like ensureOrganization. */
    ensureFolder: async (apiKeyId: string, organizationId: string, id: string) => {
      const at = new Date();
      await upsertMany(
        db,
        'Folder',
        [{ apiKeyId, organizationId, id, name: id, parentId: null, accessType: 'organizationPrivate', inheritAccessFromParent: false, createdAt: at, updatedAt: at }],
        { key: ['apiKeyId', 'organizationId', 'id'], update: [] },
      );
      return db.folder.findUniqueOrThrow({ where: { apiKeyId_organizationId_id: { apiKeyId, organizationId, id } } });
    },

    /** Race-safe like ensureOrganization. */
    ensureDocument: async (apiKeyId: string, organizationId: string, id: string) => {
      const at = new Date();
      await upsertMany(
        db,
        'Document',
        [{ apiKeyId, organizationId, id, name: id, folderId: null, accessType: 'organizationPrivate', disabled: false, createdAt: at, updatedAt: at }],
        { key: ['apiKeyId', 'organizationId', 'id'], update: [] },
      );
      return db.document.findUniqueOrThrow({ where: { apiKeyId_organizationId_id: { apiKeyId, organizationId, id } } });
    },

    /**
     * Holds the organization row until the unit of work ends, so structural
     * changes of its folder tree (a move and its cycle check, deleting folders
     * or the organization) take turns, always taking this row first. On
     * PostgreSQL a row lock; on SQLite the gate already runs transactions one
     * at a time.
     */
    lockOrganization: async (apiKeyId: string, organizationId: string) => {
      if (providerOfClient(db) !== 'postgresql') return;
      await db.$queryRawUnsafe('SELECT 1 FROM "Organization" WHERE "apiKeyId" = $1 AND "id" = $2 FOR UPDATE', apiKeyId, organizationId);
    },

    /**
     * The documents, of those listed, that exist; on PostgreSQL each found row
     * is held (FOR SHARE) until the unit of work ends. A write that adds
     * content to a document calls this first: a migration or a deletion of
     * the document (which updates or deletes its row) then waits for the write
     * to commit and moves or deletes its rows too, and a write that comes
     * after them finds the document gone instead of leaving rows under an ID
     * nothing owns. SQLite's gate runs transactions one at a time already.
     */
    holdDocuments: async (apiKeyId: string, organizationId: string, ids: readonly string[]): Promise<Set<string>> => {
      if (ids.length === 0) return new Set();
      if (providerOfClient(db) !== 'postgresql') {
        const rows = await db.document.findMany({ where: { apiKeyId, organizationId, id: { in: [...ids] } }, select: { id: true } });
        return new Set(rows.map((r) => r.id));
      }
      const rows = await db.$queryRawUnsafe<{ id: string }[]>(
        'SELECT "id" FROM "Document" WHERE "apiKeyId" = $1 AND "organizationId" = $2 AND "id" = ANY($3::text[]) ORDER BY "id" FOR SHARE',
        apiKeyId,
        organizationId,
        [...ids],
      );
      return new Set(rows.map((r) => r.id));
    },

    // ── folders ──
    findFolder: (apiKeyId: string, organizationId: string, id: string) =>
      db.folder.findUnique({ where: { apiKeyId_organizationId_id: { apiKeyId, organizationId, id } } }),

    /** Every folder of an organization: trees are small next to documents, and ancestry needs them all. */
    listFolders: (apiKeyId: string, organizationId: string) => db.folder.findMany({ where: { apiKeyId, organizationId }, orderBy: byCreation }),

    createFolder: (row: { apiKeyId: string; organizationId: string; id: string; name: string; parentId: string | null; accessType: string; inheritAccessFromParent: boolean }) =>
      db.folder.create({ data: row }),

    updateFolder: (
      apiKeyId: string,
      organizationId: string,
      id: string,
      data: { name?: string; parentId?: string | null; accessType?: string; inheritAccessFromParent?: boolean },
    ) => db.folder.update({ where: { apiKeyId_organizationId_id: { apiKeyId, organizationId, id } }, data }),

    /**
     * Deletes folders and the grants on them; returns the IDs of the documents
     * directly in them, which the caller deletes through the owned-data registry.
     */
    deleteFolders: async (apiKeyId: string, organizationId: string, folderIds: string[]): Promise<string[]> => {
      const documents = await db.document.findMany({ where: { apiKeyId, organizationId, folderId: { in: folderIds } }, select: { id: true } });
      await db.grant.deleteMany({ where: { apiKeyId, organizationId, resourceType: 'folder', resourceId: { in: folderIds } } });
      await db.folder.deleteMany({ where: { apiKeyId, organizationId, id: { in: folderIds } } });
      return documents.map((d) => d.id);
    },

    // ── documents ──
    findDocument: (apiKeyId: string, organizationId: string, id: string) =>
      db.document.findUnique({ where: { apiKeyId_organizationId_id: { apiKeyId, organizationId, id } } }),

    findDocuments: (apiKeyId: string, organizationId: string, ids: string[]) => db.document.findMany({ where: { apiKeyId, organizationId, id: { in: ids } } }),

    listDocuments: (apiKeyId: string, organizationId: string, q: { ids?: string[]; folderId?: string; after?: Cursor; take: number }) =>
      db.document.findMany({
        where: {
          apiKeyId,
          organizationId,
          ...(q.ids ? { id: { in: q.ids } } : {}),
          ...(q.folderId !== undefined ? { folderId: q.folderId } : {}),
          ...after(q.after),
        },
        orderBy: byCreation,
        take: q.take,
      }),

    createDocument: (row: { apiKeyId: string; organizationId: string; id: string; name: string; folderId: string | null; accessType: string }) =>
      db.document.create({ data: row }),

    updateDocument: (apiKeyId: string, organizationId: string, id: string, data: { name?: string; folderId?: string | null; accessType?: string; disabled?: boolean }) =>
      db.document.update({ where: { apiKeyId_organizationId_id: { apiKeyId, organizationId, id } }, data }),


    // ── users ──
    findUsers: (apiKeyId: string, ids: string[]) => db.user.findMany({ where: { apiKeyId, id: { in: ids } } }),

    upsertUser: (row: UserRecord) =>
      db.user.upsert({
        where: { apiKeyId_id: { apiKeyId: row.apiKeyId, id: row.id } },
        create: row,
        update: { name: row.name, email: row.email, initial: row.initial, profile: row.profile },
      }),

    /** Many user records in a few statements (Add Users takes up to thousands). */
    upsertUsers: (rows: UserRecord[], at: Date) =>
      upsertMany(
        db,
        'User',
        rows.map((r) => ({ ...r, createdAt: at, updatedAt: at })),
        { key: ['apiKeyId', 'id'], update: ['name', 'email', 'initial', 'profile', 'updatedAt'] },
      ),

    /** A user record for a user known only by ID (granted access before any profile was given). */
    ensureUser: (apiKeyId: string, id: string) =>
      db.user.upsert({ where: { apiKeyId_id: { apiKeyId, id } }, create: { apiKeyId, id, name: '', email: '', initial: '' }, update: {} }),

    // ── grants ──
    /**
     * Membership from Add Users: permanent; the role changes only when one is
     * given (a new member without one is an editor).
     */
    addMembers: async (
      apiKeyId: string,
      organizationId: string,
      resource: { type: ResourceType; id: string },
      members: { userId: string; accessRole: string | undefined }[],
      at: Date,
    ) => {
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
        create: { apiKeyId, organizationId, ...grant, accessFields: fieldsText(grant.accessFields) },
        update: { accessRole: grant.accessRole, expiresAt: grant.expiresAt, accessFields: fieldsText(grant.accessFields) },
      }),

    /** Changes the role of existing grants only; returns how many there were. */
    updateGrantRole: (apiKeyId: string, organizationId: string, key: GrantFilter, accessRole: string) =>
      db.grant.updateMany({ where: { apiKeyId, organizationId, ...key }, data: { accessRole } }),

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
    liveGrantsOf: async (apiKeyId: string, organizationId: string, principals: { type: PrincipalType; ids: string[] }[], nowSeconds: number) =>
      (
        await db.grant.findMany({
        where: {
          apiKeyId,
          organizationId,
          OR: principals.filter((p) => p.ids.length > 0).map((p) => ({ principalType: p.type, principalId: { in: p.ids } })),
          AND: [{ OR: [{ expiresAt: null }, { expiresAt: { gt: nowSeconds } }] }],
        },
        select: GRANT_READ,
      })
      ).map(grantRowOf),

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
    ) =>
      (
        await db.grant.findMany({
          where: {
            apiKeyId,
            organizationId,
            AND: [
              {
                OR: [
                  { resourceType: 'organization', resourceId: organizationId },
                  { resourceType: 'document', resourceId: on.documentId },
                  ...(on.folderIds.length > 0 ? [{ resourceType: 'folder', resourceId: { in: on.folderIds } }] : []),
                ],
              },
              { OR: [{ expiresAt: null }, { expiresAt: { gt: nowSeconds } }] },
              ...(principals
                ? [{ OR: principals.filter((p) => p.ids.length > 0).map((p) => ({ principalType: p.type, principalId: { in: p.ids } })) }]
                : []),
            ],
          },
          select: GRANT_READ,
        })
      ).map(grantRowOf),

    /** Live user members of one resource, oldest membership first (the contact list). */
    membersOf: async (
      apiKeyId: string,
      organizationId: string,
      resource: { type: ResourceType; id: string },
      q: { userIds?: string[]; after?: Cursor; take: number; nowSeconds: number },
    ) => {
      // Through keysetAfter, like every other list: its bare range on createdAt lets the database seek in
      // Grant_members_idx (with the OR alone it read and sorted every member of the resource on every page).
      const cursor = keysetAfter(q.after, (at) => new Date(at), { id: 'principalId' });
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

    // ── user groups ──
    findGroup: (apiKeyId: string, organizationId: string, id: string) =>
      db.userGroup.findUnique({ where: { apiKeyId_organizationId_id: { apiKeyId, organizationId, id } } }),

    createGroup: (row: { apiKeyId: string; organizationId: string; id: string; name: string }) => db.userGroup.create({ data: row }),

    groupMemberIds: async (apiKeyId: string, organizationId: string, groupId: string) =>
      (await db.userGroupMember.findMany({ where: { apiKeyId, organizationId, groupId }, select: { userId: true } })).map((m) => m.userId),

    addGroupMembers: (apiKeyId: string, organizationId: string, groupId: string, userIds: string[], at: Date) =>
      upsertMany(
        db,
        'UserGroupMember',
        userIds.map((userId) => ({ apiKeyId, organizationId, groupId, userId, createdAt: at })),
        { key: ['apiKeyId', 'organizationId', 'groupId', 'userId'], update: [] },
      ),

    removeGroupMembers: (apiKeyId: string, organizationId: string, groupId: string | undefined, userIds: string[]) =>
      db.userGroupMember.deleteMany({ where: { apiKeyId, organizationId, ...(groupId ? { groupId } : {}), userId: { in: userIds } } }),

    /** The members of these groups, as (userId, groupId) pairs. */
    membersOfGroups: (apiKeyId: string, organizationId: string, groupIds: string[]) =>
      db.userGroupMember.findMany({ where: { apiKeyId, organizationId, groupId: { in: groupIds } }, select: { userId: true, groupId: true } }),

    groupsOfUsers: (apiKeyId: string, organizationId: string, userIds: string[]) =>
      db.userGroupMember.findMany({ where: { apiKeyId, organizationId, userId: { in: userIds } }, select: { userId: true, groupId: true } }),
  };
}

function pick(grant: GrantRow) {
  return { resourceType: grant.resourceType, resourceId: grant.resourceId, principalType: grant.principalType, principalId: grant.principalId };
}

export type AccessRepo = ReturnType<typeof createAccessRepo>;

/** Which grants an update or delete touches: one principal, or several at once. */
type GrantFilter = Omit<GrantRow, 'accessRole' | 'expiresAt' | 'accessFields' | 'principalId'> & { principalId: string | { in: string[] } };

export interface UserRecord {
  apiKeyId: string;
  id: string;
  name: string;
  email: string;
  initial: string;
  profile: string;
}
