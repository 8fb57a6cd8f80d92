import type { DocumentsRepo } from './repos/documents.js';
import type { FoldersRepo } from './repos/folders.js';
import type { GrantRow, GrantsRepo } from './repos/grants.js';
import type { GroupsRepo } from './repos/groups.js';
import type { OrganizationsRepo } from './repos/organizations.js';
import { createResolver, fieldList, type DocumentNode, type FolderNode } from './resolve.js';
import { ancestry, documentNode, folderNodes } from './tree.js';

/**
 * "What may this user do on this document" and "who may read it", for the
 * domains that act on documents (comments, notifications, activities, …).
 *
 * The answers are those of Get Permissions from the stored grants, through the
 * same resolver (resolve.ts): expired grants ignored, restricted / public /
 * organizationPrivate, folder inheritance, groups, disabled → viewer.
 *
 * The external permission provider is deliberately NOT consulted here: its
 * answers are per request and come over HTTP, and these checks are meant to
 * run inside units of work (which must not make outbound calls) and for many
 * users at once (fan-out to readers). A caller that must honour the provider
 * asks it before its unit of work, as Generate Token does.
 */

export interface DocumentAccess {
  userId: string;
  accessRole: 'editor' | 'viewer';
  /** `<fieldName>:<value>` entries from the user's direct and group grants on the document (see contextVisible). */
  accessFields: string[];
  /** Whether the user holds a grant on the organization itself, directly or through a group. */
  organizationMember: boolean;
}

export interface AccessChecks {
  /** What one user may do on one document; null when they cannot read it (or the document/organization does not exist). */
  onDocument(apiKeyId: string, organizationId: string, documentId: string, userId: string): Promise<DocumentAccess | null>;
  /** Which of the given users can read the document (missing from the map = cannot). One query batch, not one per user. */
  readersAmong(apiKeyId: string, organizationId: string, documentId: string, userIds: string[]): Promise<Map<string, DocumentAccess>>;
  /**
   * Every known user of the application who can read the document (members
   * through organization/folder/document grants and groups; for a `public`
   * document, only users that exist in the organization's member list —
   * never the whole world).
   */
  readersOf(apiKeyId: string, organizationId: string, documentId: string): Promise<DocumentAccess[]>;
}

/** User IDs per query: keeps `IN (…)` lists well under both databases' bound-parameter limits. */
const USER_BATCH = 500;

interface LoadedDocument {
  organization: { id: string; disabled: boolean };
  folders: Map<string, FolderNode>;
  document: DocumentNode;
  /** The document's folder and that folder's ancestors: the folders whose grants can reach it. */
  folderIds: string[];
}

export function createAccessChecks(deps: {
  organizations: Pick<OrganizationsRepo, 'findOrganization'>;
  folders: Pick<FoldersRepo, 'listFolders'>;
  documents: Pick<DocumentsRepo, 'findDocument'>;
  grants: Pick<GrantsRepo, 'liveGrantsOnDocument'>;
  groups: Pick<GroupsRepo, 'groupsOfUsers' | 'membersOfGroups'>;
  now: () => Date;
}): AccessChecks {
  const nowSeconds = () => Math.floor(deps.now().getTime() / 1000);

  async function loadDocument(apiKeyId: string, organizationId: string, documentId: string): Promise<LoadedDocument | null> {
    const [organization, documentRow] = await Promise.all([
      deps.organizations.findOrganization(apiKeyId, organizationId),
      deps.documents.findDocument(apiKeyId, organizationId, documentId),
    ]);
    if (!organization || !documentRow) return null;
    // A document in no folder inherits from none: the organization's folder tree is not read for it.
    const folders = folderNodes(documentRow.folderId === null ? [] : await deps.folders.listFolders(apiKeyId, organizationId));
    const document = documentNode(documentRow);
    return { organization, folders, document, folderIds: ancestry(folders, document.folderId) };
  }

  /** The decision for each candidate, through the resolver Get Permissions uses. */
  function decide(loaded: LoadedDocument, grants: GrantRow[], groupsOfUser: Map<string, string[]>, candidates: Iterable<string>): Map<string, DocumentAccess> {
    const resolver = createResolver({ organization: loaded.organization, folders: loaded.folders, grants, groupsOfUser });
    const readers = new Map<string, DocumentAccess>();
    for (const userId of candidates) {
      if (readers.has(userId)) continue;
      const access = resolver.document(userId, loaded.document);
      if (access) {
        readers.set(userId, {
          userId,
          accessRole: access.accessRole,
          accessFields: fieldList(resolver.documentFields(userId, loaded.document.id)),
          organizationMember: resolver.organization(userId) !== null,
        });
      }
    }
    return readers;
  }

  function groupIndex(memberships: { userId: string; groupId: string }[]): Map<string, string[]> {
    const groupsOfUser = new Map<string, string[]>();
    for (const m of memberships) {
      const groups = groupsOfUser.get(m.userId);
      if (groups) groups.push(m.groupId);
      else groupsOfUser.set(m.userId, [m.groupId]);
    }
    return groupsOfUser;
  }

  async function readersAmong(apiKeyId: string, organizationId: string, documentId: string, userIds: string[]): Promise<Map<string, DocumentAccess>> {
    const unique = [...new Set(userIds)];
    if (unique.length === 0) return new Map();
    const loaded = await loadDocument(apiKeyId, organizationId, documentId);
    if (!loaded) return new Map();
    const readers = new Map<string, DocumentAccess>();
    for (let i = 0; i < unique.length; i += USER_BATCH) {
      const batch = unique.slice(i, i + USER_BATCH);
      const memberships = await deps.groups.groupsOfUsers(apiKeyId, organizationId, batch);
      const groupIds = [...new Set(memberships.map((m) => m.groupId))];
      const grants = await deps.grants.liveGrantsOnDocument(
        apiKeyId,
        organizationId,
        { folderIds: loaded.folderIds, documentId },
        [
          { type: 'user', ids: batch },
          { type: 'group', ids: groupIds },
        ],
        nowSeconds(),
      );
      for (const [userId, access] of decide(loaded, grants, groupIndex(memberships), batch)) readers.set(userId, access);
    }
    return readers;
  }

  return {
    async onDocument(apiKeyId, organizationId, documentId, userId) {
      return (await readersAmong(apiKeyId, organizationId, documentId, [userId])).get(userId) ?? null;
    },

    readersAmong,

    async readersOf(apiKeyId, organizationId, documentId) {
      const loaded = await loadDocument(apiKeyId, organizationId, documentId);
      if (!loaded) return [];
      // Candidates are the holders of a live grant that can reach the document (the organization,
      // its folders, the document), directly or through a group. Whoever can read it otherwise can
      // only do so because it is public, and "anyone" is not a list of users: a public document's
      // readers are the organization's members and those granted on it.
      const grants = await deps.grants.liveGrantsOnDocument(apiKeyId, organizationId, { folderIds: loaded.folderIds, documentId }, undefined, nowSeconds());
      const groupIds = [...new Set(grants.filter((g) => g.principalType === 'group').map((g) => g.principalId))];
      const memberships = groupIds.length > 0 ? await deps.groups.membersOfGroups(apiKeyId, organizationId, groupIds) : [];
      const candidates = new Set<string>([
        ...grants.filter((g) => g.principalType === 'user').map((g) => g.principalId),
        ...memberships.map((m) => m.userId),
      ]);
      const readers = decide(loaded, grants, groupIndex(memberships), candidates);
      return [...readers.values()].sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
    },
  };
}

/**
 * The feature-level access context rule (`context.accessFields`): a thread
 * with no context, or whose context has no scalar top-level entries, is
 * visible to every reader of the document; a thread whose context has scalar
 * top-level entries (string, number, boolean) is visible to a user only when
 * the user's accessFields contain EVERY `<key>:<value>` of those entries.
 * Nested objects, arrays and null do not take part (there is no
 * `<fieldName>:<value>` form for them).
 */
export function contextVisible(context: Record<string, unknown> | null | undefined, accessFields: readonly string[]): boolean {
  if (!context) return true;
  const held = new Set(accessFields);
  for (const [key, value] of Object.entries(context)) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') continue;
    if (!held.has(`${key}:${String(value)}`)) return false;
  }
  return true;
}

/** Who may see a thread among the readers of its document: what its context and its audience ask of a reader. */
export interface ThreadAudience {
  context: Record<string, unknown> | null | undefined;
  /** Visible only to the organization's members (an agent run's `private` suggestions). */
  membersOnly?: boolean;
}

/** Whether a reader of the document sees the thread: its context rule (contextVisible) and, for a members-only thread, membership. */
export function threadVisible(thread: ThreadAudience, reader: Pick<DocumentAccess, 'accessFields' | 'organizationMember'>): boolean {
  return (!thread.membersOnly || reader.organizationMember) && contextVisible(thread.context, reader.accessFields);
}

/** The audience of a thread as its events carry it (the annotation of a comment event). */
export function audienceOfAnnotation(annotation: { context: Record<string, unknown> | null; agent?: { visibility: 'private' | 'public' } }): ThreadAudience {
  return { context: annotation.context, membersOnly: annotation.agent?.visibility === 'private' };
}
