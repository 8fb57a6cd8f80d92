import type { TUserInput } from '../../../contract/access/schemas.js';
import { isUniqueViolation } from '../../db/errors.js';
import { alreadyExists, notFound } from '../../lib/app-error.js';
import { idMap } from '../../lib/id-map.js';
import type { PageTokens } from '../../lib/page-token.js';
import { createAccessLookups } from '../access/lookups.js';
import type { AccessRepo, ResourceType } from '../access/repo.js';
import type { App } from '../organizations/service.js';
import { mergeUser, profileFields, type UserRow } from './profile.js';

type Level = { type: ResourceType; id: string; label: string };

function toUserRecord(user: UserRow | undefined, userId: string, grant: { accessRole: string; expiresAt: number | null }) {
  const profile = user ? profileFields(user.profile) : {};
  return {
    userId,
    name: user?.name ?? '',
    email: user?.email ?? '',
    initial: user?.initial ?? '',
    accessRole: grant.accessRole as 'viewer' | 'editor',
    ...(grant.expiresAt !== null ? { expiresAt: grant.expiresAt } : {}),
    ...profile,
  };
}

export function createUsersService(deps: { repo: AccessRepo; pageTokens: PageTokens; nowSeconds: () => number }) {
  const { repo, pageTokens } = deps;

  /** The level an operation acts on: a document, a folder, or the organization itself. */
  function levelOf(input: { organizationId: string; documentId?: string; folderId?: string }): Level {
    if (input.documentId !== undefined) return { type: 'document', id: input.documentId, label: `document ${input.documentId}` };
    if (input.folderId !== undefined) return { type: 'folder', id: input.folderId, label: `folder ${input.folderId}` };
    return { type: 'organization', id: input.organizationId, label: `organization ${input.organizationId}` };
  }

  const find = createAccessLookups(repo);

  async function levelOrThrow(app: App, organizationId: string, level: Level): Promise<void> {
    if (level.type === 'organization') await find.organization(app.apiKeyId, organizationId);
    else if (level.type === 'folder') await find.folder(app.apiKeyId, organizationId, level.id);
    else await find.document(app.apiKeyId, organizationId, level.id);
  }

  return {
    async addUsers(
      app: App,
      input: { organizationId: string; documentId?: string; createDocument?: boolean; folderId?: string; createFolder?: boolean; users: TUserInput[] },
    ) {
      const { organizationId } = input;
      // The spec: adding users to a nonexistent organization creates it.
      await repo.ensureOrganization(app.apiKeyId, organizationId);
      const level = levelOf(input);
      if (level.type === 'document' && !(await repo.findDocument(app.apiKeyId, organizationId, level.id))) {
        if (!input.createDocument) throw notFound(`document ${level.id} does not exist in organization ${organizationId}; pass createDocument: true to create it`);
        await repo.ensureDocument(app.apiKeyId, organizationId, level.id);
      }
      if (level.type === 'folder' && !(await repo.findFolder(app.apiKeyId, organizationId, level.id))) {
        if (!input.createFolder) throw notFound(`folder ${level.id} does not exist in organization ${organizationId}; pass createFolder: true to create it`);
        await repo.ensureFolder(app.apiKeyId, organizationId, level.id);
      }

      const stored = new Map<string, UserRow>((await repo.findUsers(app.apiKeyId, input.users.map((u) => u.userId))).map((u) => [u.id, u]));
      const result = idMap<{ success: boolean; id: string; message: string }>();
      for (const user of input.users) {
        const merged = mergeUser(app, stored.get(user.userId), user);
        await repo.upsertUser(merged);
        stored.set(user.userId, merged);
        await repo.addMember(app.apiKeyId, organizationId, level, user.userId, user.accessRole);
        result[user.userId] = { success: true, id: user.userId, message: `User added to ${level.label}.` };
      }
      return result;
    },

    async deleteUsers(app: App, input: { organizationId: string; documentId?: string; folderId?: string; userIds: string[] }) {
      const { organizationId } = input;
      const level = levelOf(input);
      const result = idMap<{ success: boolean; message: string }>();
      for (const userId of input.userIds) {
        let removed: number;
        if (level.type === 'organization') {
          // The spec: organization-level removal takes away access to every
          // document and data of the organization and its contact list.
          const grants = await repo.deleteGrants(app.apiKeyId, organizationId, { principalType: 'user', principalId: userId });
          const memberships = await repo.removeGroupMembers(app.apiKeyId, organizationId, undefined, [userId]);
          removed = grants.count + memberships.count;
        } else {
          removed = (await repo.deleteGrants(app.apiKeyId, organizationId, { resourceType: level.type, resourceId: level.id, principalType: 'user', principalId: userId })).count;
        }
        result[userId] = removed > 0 ? { success: true, message: `User removed from ${level.label}.` } : { success: false, message: `User ${userId} does not exist in ${level.label}.` };
      }
      return result;
    },

    async getUsers(app: App, input: { organizationId: string; documentId?: string; folderId?: string; userIds?: string[]; pageSize?: number; pageToken?: string }) {
      const level = levelOf(input);
      await levelOrThrow(app, input.organizationId, level);
      const scope = ['users', app.apiKeyId, input.organizationId, level.type, level.id, (input.userIds ?? []).join('\u0000')].join('\n');
      const page = await pageTokens.page(
        scope,
        input,
        (after, take) => repo.membersOf(app.apiKeyId, input.organizationId, level, { userIds: input.userIds, after, take, nowSeconds: deps.nowSeconds() }),
        (grant) => ({ at: grant.createdAt.getTime(), id: grant.principalId }),
      );
      const users = new Map((await repo.findUsers(app.apiKeyId, page.items.map((g) => g.principalId))).map((u) => [u.id, u]));
      return { items: page.items.map((g) => toUserRecord(users.get(g.principalId), g.principalId, g)), pageToken: page.pageToken };
    },

    async updateUsers(app: App, input: { organizationId?: string; documentId?: string; folderId?: string; users: TUserInput[] }) {
      const stored = new Map<string, UserRow>((await repo.findUsers(app.apiKeyId, input.users.map((u) => u.userId))).map((u) => [u.id, u]));
      const level = input.organizationId !== undefined ? levelOf({ ...input, organizationId: input.organizationId }) : undefined;
      const result = idMap<{ success: boolean; id: string; message: string }>();
      for (const user of input.users) {
        const current = stored.get(user.userId);
        if (!current) {
          result[user.userId] = { success: false, id: user.userId, message: `User ${user.userId} does not exist.` };
          continue;
        }
        if (user.accessRole !== undefined && level && input.organizationId !== undefined) {
          const { count } = await repo.updateGrantRole(
            app.apiKeyId,
            input.organizationId,
            { resourceType: level.type, resourceId: level.id, principalType: 'user', principalId: user.userId },
            user.accessRole,
          );
          if (count === 0) {
            result[user.userId] = { success: false, id: user.userId, message: `User ${user.userId} is not a member of ${level.label}; add the user first.` };
            continue;
          }
        }
        const merged = mergeUser(app, current, user);
        await repo.upsertUser(merged);
        stored.set(user.userId, merged);
        result[user.userId] = { success: true, id: user.userId, message: 'User updated.' };
      }
      return result;
    },

    // ── user groups ──
    async addUserGroup(app: App, input: { organizationId: string; organizationUserGroupId: string; name: string }) {
      await repo.ensureOrganization(app.apiKeyId, input.organizationId);
      try {
        const group = await repo.createGroup({ apiKeyId: app.apiKeyId, organizationId: input.organizationId, id: input.organizationUserGroupId, name: input.name });
        return { organizationUserGroupId: group.id, organizationId: group.organizationId, name: group.name, createdAt: group.createdAt.getTime() };
      } catch (error) {
        if (isUniqueViolation(error)) throw alreadyExists(`user group ${input.organizationUserGroupId} already exists in organization ${input.organizationId}`);
        throw error;
      }
    },

    async addUsersToGroup(app: App, input: { organizationId: string; organizationUserGroupId: string; userIds: string[] }) {
      const groupId = input.organizationUserGroupId;
      await find.group(app.apiKeyId, input.organizationId, groupId);
      const known = new Set((await repo.findUsers(app.apiKeyId, input.userIds)).map((u) => u.id));
      const adding = input.userIds.filter((id) => known.has(id));
      await repo.addGroupMembers(app.apiKeyId, input.organizationId, groupId, [...new Set(adding)]);
      return Object.fromEntries(
        input.userIds.map((userId) => [
          userId,
          known.has(userId)
            ? { success: true, organizationUserGroupId: groupId, message: `User added to user group ${groupId}.` }
            : { success: false, organizationUserGroupId: groupId, message: `User ${userId} does not exist; add the user first.` },
        ]),
      );
    },

    async deleteUsersFromGroup(app: App, input: { organizationId: string; organizationUserGroupId: string; userIds?: string[]; deleteAll?: boolean }) {
      const groupId = input.organizationUserGroupId;
      await find.group(app.apiKeyId, input.organizationId, groupId);
      const members = new Set(await repo.groupMemberIds(app.apiKeyId, input.organizationId, groupId));
      const asked = input.deleteAll ? [...members, ...(input.userIds ?? [])] : (input.userIds ?? []);
      await repo.removeGroupMembers(app.apiKeyId, input.organizationId, groupId, asked.filter((id) => members.has(id)));
      return Object.fromEntries(
        asked.map((userId) => [
          userId,
          members.has(userId)
            ? { success: true, organizationUserGroupId: groupId, message: `User removed from user group ${groupId}.` }
            : { success: false, organizationUserGroupId: groupId, message: `User ${userId} does not exist in user group ${groupId}.` },
        ]),
      );
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
