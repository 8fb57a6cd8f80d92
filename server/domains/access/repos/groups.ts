import { upsertMany } from '../../../db/bulk.js';
import type { Db } from '../../../db/client.js';
import type { Clock } from '../../../lib/clock.js';
import { selectRows } from '../../../db/direct-select.js';

/** User groups of an organization and their members; scoped by application like every access repo. */
export function createGroupsRepo(db: Db, clock: Clock) {
  return {
    findGroup: (apiKeyId: string, organizationId: string, id: string) =>
      db.userGroup.findUnique({ where: { apiKeyId_organizationId_id: { apiKeyId, organizationId, id } } }),

    createGroup: (row: { apiKeyId: string; organizationId: string; id: string; name: string }) => db.userGroup.create({ data: { ...row, createdAt: BigInt(clock.nowMs()) } }),

    groupMemberIds: async (apiKeyId: string, organizationId: string, groupId: string) =>
      (await db.userGroupMember.findMany({ where: { apiKeyId, organizationId, groupId }, select: { userId: true } })).map((m) => m.userId),

    addGroupMembers: (apiKeyId: string, organizationId: string, groupId: string, userIds: string[]) => {
      const at = BigInt(clock.nowMs());
      return upsertMany(
        db,
        'UserGroupMember',
        userIds.map((userId) => ({ apiKeyId, organizationId, groupId, userId, createdAt: at })),
        { key: ['apiKeyId', 'organizationId', 'groupId', 'userId'], update: [] },
      );
    },

    removeGroupMembers: (apiKeyId: string, organizationId: string, groupId: string | undefined, userIds: string[]) =>
      db.userGroupMember.deleteMany({ where: { apiKeyId, organizationId, ...(groupId ? { groupId } : {}), userId: { in: userIds } } }),

    /** The members of these groups, as (userId, groupId) pairs. */
    membersOfGroups: (apiKeyId: string, organizationId: string, groupIds: string[]) =>
      db.userGroupMember.findMany({ where: { apiKeyId, organizationId, groupId: { in: groupIds } }, select: { userId: true, groupId: true } }),

    // Direct (db/direct-reads.ts): Get Permissions reads it on every call.
    groupsOfUsers: (apiKeyId: string, organizationId: string, userIds: string[]) =>
      selectRows(db, { from: 'UserGroupMember', columns: { userId: 'text', groupId: 'text' }, where: { apiKeyId, organizationId, userId: { in: userIds } } }),

    // ── owned data (../owned-data.ts): the groups themselves go with their organization (organizations.ts) ──
    deleteOrganizationMembers: async (apiKeyId: string, organizationId: string): Promise<void> => {
      await db.userGroupMember.deleteMany({ where: { apiKeyId, organizationId } });
    },
    /** A user's memberships in every organization of the application. */
    deleteUserMemberships: async (apiKeyId: string, userId: string): Promise<void> => {
      await db.userGroupMember.deleteMany({ where: { apiKeyId, userId } });
    },
  };
}

export type GroupsRepo = ReturnType<typeof createGroupsRepo>;
