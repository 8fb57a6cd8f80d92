import type { TUserInput } from '../../../contract/access/schemas.js';
import type { DataOf } from '../../../contract/common/envelope.js';
import type { addUsers } from '../../../contract/users/add-users.js';
import type { deleteUsers } from '../../../contract/users/delete-users.js';
import type { getUsers } from '../../../contract/users/get-users.js';
import type { updateUsers } from '../../../contract/users/update-users.js';
import type { addUserGroup, addUsersToGroup, deleteUsersFromGroup } from '../../../contract/users/user-groups.js';
import { isUniqueViolation } from '../../db/errors.js';
import { cursorAt } from '../../db/keyset.js';
import { alreadyExists } from '../../lib/app-error.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import { idMapOf } from '../../lib/id-map.js';
import type { PageTokens } from '../../lib/page-token.js';
import type { AccessLookups } from '../access/lookups.js';
import type { DocumentsRepo } from '../access/repos/documents.js';
import type { FoldersRepo } from '../access/repos/folders.js';
import type { GrantsRepo, ResourceType } from '../access/repos/grants.js';
import type { GroupsRepo } from '../access/repos/groups.js';
import type { OrganizationsRepo } from '../access/repos/organizations.js';
import { profileOf, type UserRecord, type UsersRepo } from '../access/repos/users.js';
import { mergeUser, type UserRow } from './profile.js';
import type { Caller } from '../../platform/caller.js';

type Level = { type: ResourceType; id: string; label: string };

function toUserRecord(user: UserRow | undefined, userId: string, grant: { accessRole: string; expiresAt: number | null }) {
  const profile = user ? profileOf(user.profile) : {};
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

export function createUsersService(deps: {
  organizations: Pick<OrganizationsRepo, 'ensureOrganization'>;
  folders: Pick<FoldersRepo, 'ensureFolder' | 'findFolder'>;
  documents: Pick<DocumentsRepo, 'ensureDocument' | 'findDocument'>;
  grants: Pick<GrantsRepo, 'addMembers' | 'deleteGrants' | 'grantHolders' | 'membersOf' | 'updateGrantRole'>;
  groups: Pick<GroupsRepo, 'addGroupMembers' | 'createGroup' | 'findGroup' | 'groupMemberIds' | 'groupsOfUsers' | 'removeGroupMembers'>;
  users: Pick<UsersRepo, 'findUsers' | 'upsertUsers'>;
  find: Pick<AccessLookups, 'organization' | 'folder' | 'document'>;
  uow: UnitOfWork;
  pageTokens: PageTokens;
  now: () => Date;
}) {
  const { find, uow, pageTokens } = deps;
  const nowSeconds = () => Math.floor(deps.now().getTime() / 1000);

  /** The level an operation acts on: a document, a folder, or the organization itself. */
  function levelOf(input: { organizationId: string; documentId?: string; folderId?: string }): Level {
    if (input.documentId !== undefined) return { type: 'document', id: input.documentId, label: `document ${input.documentId}` };
    if (input.folderId !== undefined) return { type: 'folder', id: input.folderId, label: `folder ${input.folderId}` };
    return { type: 'organization', id: input.organizationId, label: `organization ${input.organizationId}` };
  }

  async function levelOrThrow(app: Caller, organizationId: string, level: Level): Promise<void> {
    if (level.type === 'organization') await find.organization(app.apiKeyId, organizationId);
    else if (level.type === 'folder') await find.folder(app.apiKeyId, organizationId, level.id);
    else await find.document(app.apiKeyId, organizationId, level.id);
  }

  /**
   * Add Users: the folder or document to add to, made when missing and asked
   * for; otherwise why it cannot be used (reported per user, as the
   * specification reports per-item outcomes inside a success response).
   */
  async function prepareLevel(
    app: Caller,
    input: Pick<DataOf<typeof addUsers>, 'organizationId' | 'createDocument' | 'createFolder'>,
    level: Level,
  ): Promise<string | null> {
    const { organizationId } = input;
    const missingDocument = level.type === 'document' && !(await deps.documents.findDocument(app.apiKeyId, organizationId, level.id));
    const missingFolder = level.type === 'folder' && !(await deps.folders.findFolder(app.apiKeyId, organizationId, level.id));
    if (missingDocument && !input.createDocument) return `document ${level.id} does not exist in organization ${organizationId}; pass createDocument: true to create it`;
    if (missingFolder && !input.createFolder) return `folder ${level.id} does not exist in organization ${organizationId}; pass createFolder: true to create it`;
    // The spec: adding users to a nonexistent organization creates it.
    await deps.organizations.ensureOrganization(app.apiKeyId, organizationId);
    if (missingDocument) await deps.documents.ensureDocument(app.apiKeyId, organizationId, level.id);
    if (missingFolder) await deps.folders.ensureFolder(app.apiKeyId, organizationId, level.id);
    return null;
  }

  return {
    async addUsers(app: Caller, input: DataOf<typeof addUsers>) {
      const level = levelOf(input);
      return uow.run(async () => {
        const problem = await prepareLevel(app, input, level);
        if (problem) return idMapOf(input.users.map((u) => [u.userId, { success: false, id: u.userId, message: problem }]));

        // A user listed twice is applied in order, as if added by two calls.
        const stored = new Map<string, UserRow>((await deps.users.findUsers(app.apiKeyId, input.users.map((u) => u.userId))).map((u) => [u.id, u]));
        const records = new Map<string, UserRecord>();
        const roles = new Map<string, TUserInput['accessRole']>();
        for (const user of input.users) {
          const merged = mergeUser(app, records.get(user.userId) ?? stored.get(user.userId), user);
          records.set(user.userId, merged);
          roles.set(user.userId, user.accessRole ?? roles.get(user.userId));
        }
        await deps.users.upsertUsers([...records.values()]);
        await deps.grants.addMembers(app.apiKeyId, input.organizationId, level, [...roles].map(([userId, accessRole]) => ({ userId, accessRole })));
        return idMapOf(input.users.map((u) => [u.userId, { success: true, id: u.userId, message: `User added to ${level.label}.` }]));
      });
    },

    async deleteUsers(app: Caller, input: DataOf<typeof deleteUsers>) {
      const { organizationId } = input;
      const level = levelOf(input);
      return uow.run(async () => {
        let present: Set<string>;
        if (level.type === 'organization') {
          // The spec: organization-level removal takes away access to every
          // document and data of the organization and its contact list.
          const [grants, memberships] = await Promise.all([
            deps.grants.grantHolders(app.apiKeyId, organizationId, 'user', input.userIds),
            deps.groups.groupsOfUsers(app.apiKeyId, organizationId, input.userIds),
          ]);
          present = new Set([...grants.map((g) => g.principalId), ...memberships.map((m) => m.userId)]);
          await deps.grants.deleteGrants(app.apiKeyId, organizationId, { principalType: 'user', principalId: { in: [...present] } });
          await deps.groups.removeGroupMembers(app.apiKeyId, organizationId, undefined, [...present]);
        } else {
          const where = { resourceType: level.type, resourceId: level.id };
          present = new Set((await deps.grants.grantHolders(app.apiKeyId, organizationId, 'user', input.userIds, where)).map((g) => g.principalId));
          await deps.grants.deleteGrants(app.apiKeyId, organizationId, { ...where, principalType: 'user', principalId: { in: [...present] } });
        }
        return idMapOf(
          input.userIds.map((userId) => [
            userId,
            present.has(userId) ? { success: true, message: `User removed from ${level.label}.` } : { success: false, message: `User ${userId} does not exist in ${level.label}.` },
          ]),
        );
      });
    },

    async getUsers(app: Caller, input: DataOf<typeof getUsers>) {
      const level = levelOf(input);
      await levelOrThrow(app, input.organizationId, level);
      const scope = ['users', app.apiKeyId, input.organizationId, level.type, level.id, (input.userIds ?? []).join('\u0000')].join('\n');
      const page = await pageTokens.page(
        scope,
        input,
        (after, take) => deps.grants.membersOf(app.apiKeyId, input.organizationId, level, { userIds: input.userIds, after, take, nowSeconds: nowSeconds() }),
        (grant) => cursorAt(grant.createdAt, grant.principalId),
      );
      const users = new Map((await deps.users.findUsers(app.apiKeyId, page.items.map((g) => g.principalId))).map((u) => [u.id, u]));
      return { items: page.items.map((g) => toUserRecord(users.get(g.principalId), g.principalId, g)), pageToken: page.pageToken };
    },

    async updateUsers(app: Caller, input: DataOf<typeof updateUsers>) {
      const level = input.organizationId !== undefined ? levelOf({ ...input, organizationId: input.organizationId }) : undefined;
      return uow.run(async () => {
        const ids = input.users.map((u) => u.userId);
        const stored = new Map<string, UserRow>((await deps.users.findUsers(app.apiKeyId, ids)).map((u) => [u.id, u]));
        const roleChanges = level !== undefined && input.organizationId !== undefined && input.users.some((u) => u.accessRole !== undefined);
        const members = roleChanges
          ? new Set((await deps.grants.grantHolders(app.apiKeyId, input.organizationId!, 'user', ids, { resourceType: level!.type, resourceId: level!.id })).map((g) => g.principalId))
          : new Set<string>();

        const records = new Map<string, UserRecord>();
        const roles = new Map<string, 'viewer' | 'editor'>();
        const result = new Map<string, { success: boolean; id: string; message: string }>();
        for (const user of input.users) {
          const current = records.get(user.userId) ?? stored.get(user.userId);
          if (!current) {
            result.set(user.userId, { success: false, id: user.userId, message: `User ${user.userId} does not exist.` });
            continue;
          }
          if (roleChanges && user.accessRole !== undefined) {
            if (!members.has(user.userId)) {
              result.set(user.userId, { success: false, id: user.userId, message: `User ${user.userId} is not a member of ${level!.label}; add the user first.` });
              continue;
            }
            roles.set(user.userId, user.accessRole);
          }
          records.set(user.userId, mergeUser(app, current, user));
          result.set(user.userId, { success: true, id: user.userId, message: 'User updated.' });
        }
        for (const accessRole of ['viewer', 'editor'] as const) {
          const userIds = [...roles].filter(([, role]) => role === accessRole).map(([userId]) => userId);
          if (userIds.length > 0) {
            await deps.grants.updateGrantRole(app.apiKeyId, input.organizationId!, { resourceType: level!.type, resourceId: level!.id, principalType: 'user', principalId: { in: userIds } }, accessRole);
          }
        }
        await deps.users.upsertUsers([...records.values()]);
        return idMapOf(result);
      });
    },

    // ── user groups ──
    async addUserGroup(app: Caller, input: DataOf<typeof addUserGroup>) {
      return uow.run(async () => {
        await deps.organizations.ensureOrganization(app.apiKeyId, input.organizationId);
        try {
          const group = await deps.groups.createGroup({ apiKeyId: app.apiKeyId, organizationId: input.organizationId, id: input.organizationUserGroupId, name: input.name });
          return { organizationUserGroupId: group.id, organizationId: group.organizationId, name: group.name, createdAt: Number(group.createdAt) };
        } catch (error) {
          if (isUniqueViolation(error)) throw alreadyExists(`user group ${input.organizationUserGroupId} already exists in organization ${input.organizationId}`);
          throw error;
        }
      });
    },

    async addUsersToGroup(app: Caller, input: DataOf<typeof addUsersToGroup>) {
      const groupId = input.organizationUserGroupId;
      const entry = (success: boolean, message: string) => ({ success, organizationUserGroupId: groupId, message });
      return uow.run(async () => {
        // An unknown group is each user's problem, reported per item like an unknown user.
        if (!(await deps.groups.findGroup(app.apiKeyId, input.organizationId, groupId))) {
          return idMapOf(input.userIds.map((userId) => [userId, entry(false, noGroup(groupId, input.organizationId))]));
        }
        const known = new Set((await deps.users.findUsers(app.apiKeyId, input.userIds)).map((u) => u.id));
        await deps.groups.addGroupMembers(app.apiKeyId, input.organizationId, groupId, [...known]);
        return idMapOf(
          input.userIds.map((userId) => [
            userId,
            known.has(userId) ? entry(true, `User added to user group ${groupId}.`) : entry(false, `User ${userId} does not exist; add the user first.`),
          ]),
        );
      });
    },

    async deleteUsersFromGroup(app: Caller, input: DataOf<typeof deleteUsersFromGroup>) {
      const groupId = input.organizationUserGroupId;
      const entry = (success: boolean, message: string) => ({ success, organizationUserGroupId: groupId, message });
      return uow.run(async () => {
        // An unknown group has no members: each listed user gets success: false, deleteAll removes nobody.
        if (!(await deps.groups.findGroup(app.apiKeyId, input.organizationId, groupId))) {
          return idMapOf((input.userIds ?? []).map((userId) => [userId, entry(false, noGroup(groupId, input.organizationId))]));
        }
        const members = new Set(await deps.groups.groupMemberIds(app.apiKeyId, input.organizationId, groupId));
        const asked = input.deleteAll ? [...members, ...(input.userIds ?? [])] : (input.userIds ?? []);
        await deps.groups.removeGroupMembers(app.apiKeyId, input.organizationId, groupId, asked.filter((id) => members.has(id)));
        return idMapOf(
          asked.map((userId) => [
            userId,
            members.has(userId) ? entry(true, `User removed from user group ${groupId}.`) : entry(false, `User ${userId} does not exist in user group ${groupId}.`),
          ]),
        );
      });
    },
  };
}

const noGroup = (groupId: string, organizationId: string) => `user group ${groupId} does not exist in organization ${organizationId}`;

export type UsersService = ReturnType<typeof createUsersService>;
