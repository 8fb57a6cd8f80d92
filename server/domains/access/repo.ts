import type { Db } from '../../db/client.js';
import type { Cursor } from '../../lib/page-token.js';

export type ResourceType = 'organization' | 'folder' | 'document';
export type PrincipalType = 'user' | 'group';

export interface GrantRow {
  resourceType: ResourceType;
  resourceId: string;
  principalType: PrincipalType;
  principalId: string;
  accessRole: 'viewer' | 'editor';
  expiresAt: number | null;
}

/** Rows after `after` in (createdAt, id) order: the keyset condition of every paged list. */
function after(cursor: Cursor | undefined) {
  if (!cursor) return {};
  const at = new Date(cursor.at);
  return { OR: [{ createdAt: { gt: at } }, { createdAt: at, id: { gt: cursor.id } }] };
}

const byCreation = [{ createdAt: 'asc' as const }, { id: 'asc' as const }];

/**
 * Data access for organizations, folders, documents, users, user groups and
 * grants. Every function takes the application (apiKeyId) first and puts it
 * into every query: tenancy is not something a caller can forget.
 */
export function createAccessRepo(db: Db) {
  return {
    // ── organizations ──
    findOrganization: (apiKeyId: string, id: string) => db.organization.findUnique({ where: { apiKeyId_id: { apiKeyId, id } } }),

    createOrganization: (apiKeyId: string, id: string, name: string) => db.organization.create({ data: { apiKeyId, id, name } }),

    /** Creates the organization when missing (race-safe); returns it either way. */
    ensureOrganization: (apiKeyId: string, id: string) =>
      db.organization.upsert({ where: { apiKeyId_id: { apiKeyId, id } }, create: { apiKeyId, id, name: id }, update: {} }),

    listOrganizations: (apiKeyId: string, q: { ids?: string[]; after?: Cursor; take: number }) =>
      db.organization.findMany({
        where: { apiKeyId, ...(q.ids ? { id: { in: q.ids } } : {}), ...after(q.after) },
        orderBy: byCreation,
        take: q.take,
      }),

    updateOrganization: (apiKeyId: string, id: string, data: { name?: string; disabled?: boolean }) =>
      db.organization.update({ where: { apiKeyId_id: { apiKeyId, id } }, data }),

    deleteOrganization: (apiKeyId: string, organizationId: string) => {
      const where = { apiKeyId, organizationId };
      return db.$transaction([
        db.grant.deleteMany({ where }),
        db.userGroupMember.deleteMany({ where }),
        db.userGroup.deleteMany({ where }),
        db.document.deleteMany({ where }),
        db.folder.deleteMany({ where }),
        db.organization.deleteMany({ where: { apiKeyId, id: organizationId } }),
      ]);
    },

    /** Folders and documents that a grant or membership names are created when missing: at the top, organizationPrivate. */
    ensureFolder: (apiKeyId: string, organizationId: string, id: string) =>
      db.folder.upsert({
        where: { apiKeyId_organizationId_id: { apiKeyId, organizationId, id } },
        create: { apiKeyId, organizationId, id, name: id, parentId: null, inheritAccessFromParent: false },
        update: {},
      }),

    ensureDocument: (apiKeyId: string, organizationId: string, id: string) =>
      db.document.upsert({
        where: { apiKeyId_organizationId_id: { apiKeyId, organizationId, id } },
        create: { apiKeyId, organizationId, id, name: id, folderId: null },
        update: {},
      }),

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

    /** Deletes folders, the documents directly in them, and every grant on either. */
    deleteFolders: async (apiKeyId: string, organizationId: string, folderIds: string[]) => {
      const documents = await db.document.findMany({ where: { apiKeyId, organizationId, folderId: { in: folderIds } }, select: { id: true } });
      const documentIds = documents.map((d) => d.id);
      return db.$transaction([
        db.grant.deleteMany({ where: { apiKeyId, organizationId, resourceType: 'folder', resourceId: { in: folderIds } } }),
        db.grant.deleteMany({ where: { apiKeyId, organizationId, resourceType: 'document', resourceId: { in: documentIds } } }),
        db.document.deleteMany({ where: { apiKeyId, organizationId, id: { in: documentIds } } }),
        db.folder.deleteMany({ where: { apiKeyId, organizationId, id: { in: folderIds } } }),
      ]);
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

    deleteDocument: (apiKeyId: string, organizationId: string, id: string) =>
      db.$transaction([
        db.grant.deleteMany({ where: { apiKeyId, organizationId, resourceType: 'document', resourceId: id } }),
        db.document.deleteMany({ where: { apiKeyId, organizationId, id } }),
      ]),

    // ── users ──
    findUsers: (apiKeyId: string, ids: string[]) => db.user.findMany({ where: { apiKeyId, id: { in: ids } } }),

    upsertUser: (row: { apiKeyId: string; id: string; name: string; email: string; initial: string; profile: string }) =>
      db.user.upsert({
        where: { apiKeyId_id: { apiKeyId: row.apiKeyId, id: row.id } },
        create: row,
        update: { name: row.name, email: row.email, initial: row.initial, profile: row.profile },
      }),

    /** A user record for a user known only by ID (granted access before any profile was given). */
    ensureUser: (apiKeyId: string, id: string) =>
      db.user.upsert({ where: { apiKeyId_id: { apiKeyId, id } }, create: { apiKeyId, id, name: '', email: '', initial: '' }, update: {} }),

    // ── grants ──
    /**
     * Membership from Add Users: permanent; the role changes only when one is
     * given (a new member without one is an editor).
     */
    addMember: (apiKeyId: string, organizationId: string, resource: { type: ResourceType; id: string }, userId: string, accessRole: string | undefined) => {
      const key = { resourceType: resource.type, resourceId: resource.id, principalType: 'user', principalId: userId };
      return db.grant.upsert({
        where: { apiKeyId_organizationId_resourceType_resourceId_principalType_principalId: { apiKeyId, organizationId, ...key } },
        create: { apiKeyId, organizationId, ...key, accessRole: accessRole ?? 'editor', expiresAt: null },
        update: accessRole ? { accessRole, expiresAt: null } : { expiresAt: null },
      });
    },

    upsertGrant: (apiKeyId: string, organizationId: string, grant: GrantRow) =>
      db.grant.upsert({
        where: { apiKeyId_organizationId_resourceType_resourceId_principalType_principalId: { apiKeyId, organizationId, ...pick(grant) } },
        create: { apiKeyId, organizationId, ...grant },
        update: { accessRole: grant.accessRole, expiresAt: grant.expiresAt },
      }),

    /** Changes the role of existing grants only; returns how many there were. */
    updateGrantRole: (apiKeyId: string, organizationId: string, key: Omit<GrantRow, 'accessRole' | 'expiresAt'>, accessRole: string) =>
      db.grant.updateMany({ where: { apiKeyId, organizationId, ...key }, data: { accessRole } }),

    deleteGrants: (apiKeyId: string, organizationId: string, where: Partial<Omit<GrantRow, 'accessRole' | 'expiresAt'>>) =>
      db.grant.deleteMany({ where: { apiKeyId, organizationId, ...where } }),

    /** Grants of these principals in one organization that have not lapsed. */
    liveGrantsOf: (apiKeyId: string, organizationId: string, principals: { type: PrincipalType; ids: string[] }[], nowSeconds: number) =>
      db.grant.findMany({
        where: {
          apiKeyId,
          organizationId,
          OR: principals.filter((p) => p.ids.length > 0).map((p) => ({ principalType: p.type, principalId: { in: p.ids } })),
          AND: [{ OR: [{ expiresAt: null }, { expiresAt: { gt: nowSeconds } }] }],
        },
        select: { resourceType: true, resourceId: true, principalType: true, principalId: true, accessRole: true, expiresAt: true },
      }) as Promise<GrantRow[]>,

    /** Live user members of one resource, oldest membership first (the contact list). */
    membersOf: (
      apiKeyId: string,
      organizationId: string,
      resource: { type: ResourceType; id: string },
      q: { userIds?: string[]; after?: Cursor; take: number; nowSeconds: number },
    ) => {
      const cursor = q.after
        ? { OR: [{ createdAt: { gt: new Date(q.after.at) } }, { createdAt: new Date(q.after.at), principalId: { gt: q.after.id } }] }
        : {};
      return db.grant.findMany({
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
    },

    // ── user groups ──
    findGroup: (apiKeyId: string, organizationId: string, id: string) =>
      db.userGroup.findUnique({ where: { apiKeyId_organizationId_id: { apiKeyId, organizationId, id } } }),

    createGroup: (row: { apiKeyId: string; organizationId: string; id: string; name: string }) => db.userGroup.create({ data: row }),

    groupMemberIds: async (apiKeyId: string, organizationId: string, groupId: string) =>
      (await db.userGroupMember.findMany({ where: { apiKeyId, organizationId, groupId }, select: { userId: true } })).map((m) => m.userId),

    addGroupMembers: (apiKeyId: string, organizationId: string, groupId: string, userIds: string[]) =>
      db.$transaction(
        userIds.map((userId) =>
          db.userGroupMember.upsert({
            where: { apiKeyId_organizationId_groupId_userId: { apiKeyId, organizationId, groupId, userId } },
            create: { apiKeyId, organizationId, groupId, userId },
            update: {},
          }),
        ),
      ),

    removeGroupMembers: (apiKeyId: string, organizationId: string, groupId: string | undefined, userIds: string[]) =>
      db.userGroupMember.deleteMany({ where: { apiKeyId, organizationId, ...(groupId ? { groupId } : {}), userId: { in: userIds } } }),

    groupsOfUsers: (apiKeyId: string, organizationId: string, userIds: string[]) =>
      db.userGroupMember.findMany({ where: { apiKeyId, organizationId, userId: { in: userIds } }, select: { userId: true, groupId: true } }),
  };
}

function pick(grant: GrantRow) {
  return { resourceType: grant.resourceType, resourceId: grant.resourceId, principalType: grant.principalType, principalId: grant.principalId };
}

export type AccessRepo = ReturnType<typeof createAccessRepo>;
