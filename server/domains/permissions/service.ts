import type { TPermissionEntry, TPermissionResult, TResourcePermission } from '../../../contract/access/schemas.js';
import type { DataOf } from '../../../contract/common/envelope.js';
import type { addPermissions } from '../../../contract/permissions/add-permissions.js';
import type { generateToken } from '../../../contract/permissions/generate-token.js';
import type { getPermissions } from '../../../contract/permissions/get-permissions.js';
import type { removePermissions } from '../../../contract/permissions/remove-permissions.js';
import { invalidArgument, notFound } from '../../lib/app-error.js';
import { idMap } from '../../lib/id-map.js';
import type { AccessLookups } from '../access/lookups.js';
import type { DocumentsRepo } from '../access/repos/documents.js';
import type { FoldersRepo } from '../access/repos/folders.js';
import type { GrantRow, GrantsRepo, PrincipalType, ResourceType } from '../access/repos/grants.js';
import type { GroupsRepo } from '../access/repos/groups.js';
import type { OrganizationsRepo } from '../access/repos/organizations.js';
import type { UsersRepo } from '../access/repos/users.js';
import { createResolver, documentAccessType, fieldList, folderAccessType, type Access } from '../access/resolve.js';
import { documentNode, folderNodes } from '../access/tree.js';
import { answerKey, type PermissionProviderClient, type ProviderRequest } from '../permission-provider/client.js';
import type { WorkspaceConfigService } from '../workspace/service.js';
import { mergeUser } from '../users/profile.js';
import type { SigningKeys, UserTokenBody } from './signing-keys.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Caller } from '../../platform/caller.js';

type Maps = Required<Omit<TPermissionResult, 'context'>> & Pick<TPermissionResult, 'context'>;
type Principal = { type: PrincipalType; id: string; organizationId?: string };
/** Get Permissions' data once normalized: every list present, without repeats. */
type PermissionsQuery = Required<DataOf<typeof getPermissions>>;

const denied = (what: string, userId: string, accessType?: string): TPermissionEntry => ({
  error: `user ${userId} does not have access to ${what}`,
  errorCode: 'permission_denied',
  ...(accessType ? { accessType: accessType as TPermissionEntry['accessType'] } : {}),
});
const missing = (what: string): TPermissionEntry => ({ error: `${what} does not exist`, errorCode: 'does_not_exist' });
const granted = (access: Access, accessType?: string): TPermissionEntry => ({
  accessRole: access.accessRole,
  ...(accessType ? { accessType: accessType as TPermissionEntry['accessType'] } : {}),
  ...(access.expiresAt !== undefined ? { expiresAt: access.expiresAt } : {}),
});

const organizationOf = (entry: TResourcePermission) => (entry.type === 'organization' ? entry.id : entry.organizationId!);

export function createPermissionsService(deps: {
  organizations: Pick<OrganizationsRepo, 'ensureOrganization' | 'findOrganization'>;
  folders: Pick<FoldersRepo, 'ensureFolder' | 'listFolders'>;
  documents: Pick<DocumentsRepo, 'ensureDocument' | 'findDocuments'>;
  grants: Pick<GrantsRepo, 'deleteGrants' | 'liveGrantsOf' | 'upsertGrant'>;
  groups: Pick<GroupsRepo, 'groupsOfUsers'>;
  users: Pick<UsersRepo, 'ensureUser' | 'upsertUser'>;
  find: Pick<AccessLookups, 'group'>;
  config: WorkspaceConfigService;
  provider: PermissionProviderClient;
  signingKeys: SigningKeys;
  uow: UnitOfWork;
  nowSeconds: () => number;
}) {
  const { find, uow } = deps;

  /** Get Permissions from the stored grants. */
  async function resolveLocally(app: Caller, input: PermissionsQuery) {
    const { organizationId, userIds } = input;
    const [organization, folderRows, documentRows, memberships] = await Promise.all([
      deps.organizations.findOrganization(app.apiKeyId, organizationId),
      deps.folders.listFolders(app.apiKeyId, organizationId),
      input.documentIds.length > 0 ? deps.documents.findDocuments(app.apiKeyId, organizationId, input.documentIds) : [],
      deps.groups.groupsOfUsers(app.apiKeyId, organizationId, userIds),
    ]);
    const groupsOfUser = new Map<string, string[]>();
    for (const m of memberships) groupsOfUser.set(m.userId, [...(groupsOfUser.get(m.userId) ?? []), m.groupId]);
    const grants = await deps.grants.liveGrantsOf(
      app.apiKeyId,
      organizationId,
      [
        { type: 'user', ids: userIds },
        { type: 'group', ids: [...new Set(memberships.map((m) => m.groupId))] },
      ],
      deps.nowSeconds(),
    );
    const folders = folderNodes(folderRows);
    const documents = new Map(documentRows.map((d) => [d.id, documentNode(d)]));
    const resolver = organization ? createResolver({ organization, folders, grants, groupsOfUser }) : null;

    let anyMissing = false;
    const result = idMap<Maps>();
    for (const userId of userIds) {
      const maps: Maps = { organization: idMap(), folders: idMap(), documents: idMap() };
      if (!resolver) {
        anyMissing = true;
        maps.organization[organizationId] = missing(`organization ${organizationId}`);
      } else {
        const access = resolver.organization(userId);
        maps.organization[organizationId] = access ? granted(access) : denied(`organization ${organizationId}`, userId);
      }
      for (const folderId of input.folderIds) {
        if (!resolver || !folders.has(folderId)) {
          anyMissing = true;
          maps.folders[folderId] = missing(`folder ${folderId}`);
          continue;
        }
        const accessType = folderAccessType(folders, folderId);
        const access = resolver.folder(userId, folderId);
        maps.folders[folderId] = access ? granted(access, accessType) : denied(`folder ${folderId}`, userId, accessType);
      }
      for (const documentId of input.documentIds) {
        const document = documents.get(documentId);
        if (!resolver || !document) {
          anyMissing = true;
          maps.documents[documentId] = missing(`document ${documentId}`);
          continue;
        }
        const accessType = documentAccessType(folders, document);
        const access = resolver.document(userId, document);
        maps.documents[documentId] = access ? granted(access, accessType) : denied(`document ${documentId}`, userId, accessType);
      }
      // Feature-level access context: the fields of the user's live grants on the documents asked about.
      const accessFields = resolver ? fieldList(input.documentIds.flatMap((documentId) => (documents.has(documentId) ? resolver.documentFields(userId, documentId) : []))) : [];
      if (accessFields.length > 0) maps.context = { accessFields };
      result[userId] = maps;
    }
    if (anyMissing) throw notFound('one or more of the requested resources do not exist; see details', result);
    return result;
  }

  /** Get Permissions from the application's permission provider; local records only add accessType. */
  async function resolveWithProvider(
    app: Caller,
    target: NonNullable<Awaited<ReturnType<WorkspaceConfigService['permissionProviderTarget']>>>,
    input: PermissionsQuery,
  ) {
    const { organizationId } = input;
    const resources: { type: ResourceType; id: string }[] = [
      { type: 'organization', id: organizationId },
      ...input.folderIds.map((id) => ({ type: 'folder' as const, id })),
      ...input.documentIds.map((id) => ({ type: 'document' as const, id })),
    ];
    const requests: ProviderRequest[] = input.userIds.flatMap((userId) => resources.map((r) => ({ userId, resource: { ...r, organizationId } })));
    const [answers, folderRows, documentRows] = await Promise.all([
      deps.provider.ask(target, requests),
      deps.folders.listFolders(app.apiKeyId, organizationId),
      input.documentIds.length > 0 ? deps.documents.findDocuments(app.apiKeyId, organizationId, input.documentIds) : [],
    ]);
    const folders = folderNodes(folderRows);
    const accessTypes = new Map<string, string>([
      ...input.folderIds.filter((id) => folders.has(id)).map((id) => [`folder:${id}`, folderAccessType(folders, id)] as [string, string]),
      ...documentRows.map((d) => [`document:${d.id}`, documentAccessType(folders, documentNode(d))] as [string, string]),
    ]);
    const result = idMap<Maps>();
    for (const userId of input.userIds) {
      const maps: Maps = { organization: idMap(), folders: idMap(), documents: idMap() };
      for (const r of resources) {
        const answer = answers.get(answerKey(userId, r.type, r.id))!;
        const accessType = accessTypes.get(`${r.type}:${r.id}`);
        const map = r.type === 'organization' ? maps.organization : r.type === 'folder' ? maps.folders : maps.documents;
        map[r.id] = answer.hasAccess
          ? granted({ accessRole: answer.accessRole ?? 'editor', ...(answer.expiresAt !== undefined ? { expiresAt: answer.expiresAt } : {}) }, accessType)
          : denied(`${r.type} ${r.id}`, userId, accessType);
      }
      result[userId] = maps;
    }
    return result;
  }

  /** Checks the principal and the entries, creating missing organizations, folders and documents. */
  async function prepareGrants(app: Caller, principal: Principal, resources: TResourcePermission[]) {
    if (principal.type === 'group') {
      await find.group(app.apiKeyId, principal.organizationId!, principal.id);
      const foreign = resources.find((r) => organizationOf(r) !== principal.organizationId);
      if (foreign) throw invalidArgument(`user group ${principal.id} belongs to organization ${principal.organizationId}; it cannot be granted ${foreign.type} ${foreign.id} of organization ${organizationOf(foreign)}`);
    }
    const lapsed = resources.find((r) => r.expiresAt !== undefined && r.expiresAt <= deps.nowSeconds());
    if (lapsed) throw invalidArgument(`expiresAt of ${lapsed.type} ${lapsed.id} is in the past (it is Unix seconds)`);
    for (const organizationId of new Set(resources.map(organizationOf))) await deps.organizations.ensureOrganization(app.apiKeyId, organizationId);
    for (const r of resources) {
      // Resources are created on first grant, as clients create documents by opening them.
      if (r.type === 'folder') await deps.folders.ensureFolder(app.apiKeyId, r.organizationId!, r.id);
      if (r.type === 'document') await deps.documents.ensureDocument(app.apiKeyId, r.organizationId!, r.id);
    }
    if (principal.type === 'user') await deps.users.ensureUser(app.apiKeyId, principal.id);
  }

  /** The resources (created when missing) and the grants on them; inside the caller's unit of work. */
  async function writeGrants(app: Caller, principal: Principal, resources: TResourcePermission[]) {
    await prepareGrants(app, principal, resources);
    for (const r of resources) await deps.grants.upsertGrant(app.apiKeyId, organizationOf(r), grantRow(principal, r));
  }

  function grantRow(principal: Principal, r: TResourcePermission): GrantRow {
    return {
      resourceType: r.type,
      resourceId: r.id,
      principalType: principal.type,
      principalId: principal.id,
      accessRole: r.accessRole ?? 'editor',
      expiresAt: r.expiresAt ?? null,
      // Granting again replaces the fields like the role: an entry without context clears them.
      accessFields: r.type === 'document' ? fieldList(r.context?.accessFields ?? []) : [],
    };
  }

  function principalOf(input: Pick<DataOf<typeof addPermissions>, 'user' | 'userGroup'>): Principal {
    if (input.user) return { type: 'user', id: input.user.userId };
    return { type: 'group', id: input.userGroup!.organizationUserGroupId, organizationId: input.userGroup!.organizationId };
  }

  return {
    async getPermissions(app: Caller, input: DataOf<typeof getPermissions>) {
      const normalized = {
        organizationId: input.organizationId,
        userIds: [...new Set(input.userIds)],
        folderIds: [...new Set(input.folderIds ?? [])],
        documentIds: [...new Set(input.documentIds ?? [])],
      };
      const target = await deps.config.permissionProviderTarget(app.apiKeyId);
      return target ? resolveWithProvider(app, target, normalized) : resolveLocally(app, normalized);
    },

    async addPermissions(app: Caller, input: DataOf<typeof addPermissions>) {
      const principal = principalOf(input);
      await uow.run(() => writeGrants(app, principal, input.permissions.resources));
    },

    async removePermissions(app: Caller, input: DataOf<typeof removePermissions>) {
      const principal = principalOf(input);
      await uow.run(async () => {
        for (const r of input.permissions.resources) {
          await deps.grants.deleteGrants(app.apiKeyId, organizationOf(r), { resourceType: r.type, resourceId: r.id, principalType: principal.type, principalId: principal.id });
        }
      });
    },

    async generateToken(app: Caller, input: DataOf<typeof generateToken>): Promise<{ token: string }> {
      const { organizationId: _never, ...properties } = input.userProperties;
      // The token describes the user as given now: the stored profile is replaced, not merged.
      const { isAdmin, ...profileFields } = properties;
      const user = mergeUser(app, undefined, { userId: input.userId, ...profileFields });

      let resources = input.permissions.resources.map((r) => ({ ...r, accessRole: r.accessRole ?? ('editor' as const) }));
      const target = await deps.config.permissionProviderTarget(app.apiKeyId);
      if (target) {
        // The provider decides; only what it grants goes into the token, with its role and expiry.
        // Asked before the unit of work: no outbound HTTP while a transaction is open.
        const answers = await deps.provider.ask(
          target,
          resources.map((r) => ({ userId: input.userId, resource: { id: r.id, type: r.type, organizationId: organizationOf(r) } })),
        );
        resources = resources.flatMap((r) => {
          const answer = answers.get(answerKey(input.userId, r.type, r.id));
          if (!answer?.hasAccess) return [];
          return [{ ...r, accessRole: answer.accessRole ?? 'editor', ...(answer.expiresAt !== undefined ? { expiresAt: answer.expiresAt } : {}) }];
        });
        await deps.users.upsertUser(user);
      } else {
        await uow.run(async () => {
          await deps.users.upsertUser(user);
          await writeGrants(app, { type: 'user', id: input.userId }, resources);
        });
      }

      const claims: UserTokenBody = {
        user: { userId: input.userId, ...properties, initial: user.initial, isAdmin: isAdmin ?? false },
        permissions: {
          resources: resources.map((r) => ({
            type: r.type,
            id: r.id,
            ...(r.type !== 'organization' ? { organizationId: r.organizationId } : {}),
            accessRole: r.accessRole,
            ...(r.expiresAt !== undefined ? { expiresAt: r.expiresAt } : {}),
            ...(r.type === 'document' && r.context && r.context.accessFields.length > 0 ? { context: { accessFields: fieldList(r.context.accessFields) } } : {}),
          })),
        },
      };
      return { token: await deps.signingKeys.sign(app.apiKeyId, claims, input.userId) };
    },
  };
}

export type PermissionsService = ReturnType<typeof createPermissionsService>;
