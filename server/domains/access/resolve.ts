import type { TAccessRole, TAccessType } from '../../../contract/access/schemas.js';
import type { GrantRow, ResourceType } from './repos/grants.js';

/**
 * The access rules of the specification, as a pure function of one
 * organization's data (no I/O, so a property test can check it against a
 * reference model):
 * - organization members reach every folder and document of the organization
 *   except `restricted` ones;
 * - folder members reach that folder, the documents in it, and subfolders
 *   (and their documents) that inherit access from their parent;
 * - document members reach that document only;
 * - a group's grants reach its members;
 * - `public` resources are viewable by anyone;
 * - a folder that inherits access takes its parent's access type, a document
 *   in a folder takes its folder's;
 * - a disabled organization or document is read-only (at most `viewer`);
 * - several grants: the higher role wins; at equal role, a permanent grant
 *   beats a temporary one, and a later expiry an earlier one.
 * Grants are passed in already filtered to the live ones (expiresAt in the
 * future or none), so temporary access lapses without any job running.
 *
 * A document grant may also carry access fields (feature-level access
 * context); a user's fields on a document are those of their own and their
 * groups' grants on that document.
 */

export interface FolderNode {
  id: string;
  parentId: string | null;
  accessType: TAccessType;
  inheritAccessFromParent: boolean;
}

export interface DocumentNode {
  id: string;
  folderId: string | null;
  accessType: TAccessType;
  disabled: boolean;
}

export interface AccessGraph {
  organization: { id: string; disabled: boolean };
  folders: Map<string, FolderNode>;
  grants: GrantRow[];
  /** Groups of each user within this organization. */
  groupsOfUser: Map<string, string[]>;
}

export interface Access {
  accessRole: TAccessRole;
  expiresAt?: number;
}

const RANK: Record<TAccessRole, number> = { viewer: 1, editor: 2 };
const PUBLIC_VIEW: Access = { accessRole: 'viewer' };

export function better(a: Access | null, b: Access | null): Access | null {
  if (!a) return b;
  if (!b) return a;
  if (RANK[a.accessRole] !== RANK[b.accessRole]) return RANK[a.accessRole] > RANK[b.accessRole] ? a : b;
  if (a.expiresAt === undefined) return a;
  if (b.expiresAt === undefined) return b;
  return a.expiresAt >= b.expiresAt ? a : b;
}

/** A folder's access type after inheritance from its ancestors. */
export function folderAccessType(folders: Map<string, FolderNode>, folderId: string): TAccessType {
  const seen = new Set<string>();
  let folder = folders.get(folderId);
  while (folder && folder.inheritAccessFromParent && folder.parentId !== null && !seen.has(folder.id)) {
    seen.add(folder.id);
    const parent = folders.get(folder.parentId);
    if (!parent) break;
    folder = parent;
  }
  return folder?.accessType ?? 'organizationPrivate';
}

export function documentAccessType(folders: Map<string, FolderNode>, document: DocumentNode): TAccessType {
  return document.folderId !== null && folders.has(document.folderId) ? folderAccessType(folders, document.folderId) : document.accessType;
}

export function createResolver(graph: AccessGraph) {
  const byResource = new Map<string, GrantRow[]>();
  for (const grant of graph.grants) {
    const key = `${grant.resourceType}\u0000${grant.resourceId}`;
    const list = byResource.get(key);
    if (list) list.push(grant);
    else byResource.set(key, [grant]);
  }

  /** The grants a user holds on one resource, directly or through a group. */
  function grantsOf(userId: string, type: ResourceType, id: string): GrantRow[] {
    const grants = byResource.get(`${type}\u0000${id}`);
    if (!grants) return [];
    const groups = graph.groupsOfUser.get(userId) ?? [];
    return grants.filter((g) => (g.principalType === 'user' ? g.principalId === userId : groups.includes(g.principalId)));
  }

  /** The best grant a user holds on one resource, directly or through a group. */
  function granted(userId: string, type: ResourceType, id: string): Access | null {
    let best: Access | null = null;
    for (const g of grantsOf(userId, type, id)) {
      best = better(best, g.expiresAt === null ? { accessRole: g.accessRole } : { accessRole: g.accessRole, expiresAt: g.expiresAt });
    }
    return best;
  }

  /** Membership of a folder or of an ancestor it inherits access from. */
  function folderMembership(userId: string, folderId: string): Access | null {
    const seen = new Set<string>();
    let best: Access | null = null;
    let folder = graph.folders.get(folderId);
    while (folder && !seen.has(folder.id)) {
      seen.add(folder.id);
      best = better(best, granted(userId, 'folder', folder.id));
      if (!folder.inheritAccessFromParent || folder.parentId === null) break;
      folder = graph.folders.get(folder.parentId);
    }
    return best;
  }

  function byAccessType(userId: string, accessType: TAccessType): Access | null {
    const member = accessType === 'restricted' ? null : granted(userId, 'organization', graph.organization.id);
    return accessType === 'public' ? better(member, PUBLIC_VIEW) : member;
  }

  function cap(access: Access | null, readOnly: boolean): Access | null {
    if (!access || !readOnly || access.accessRole === 'viewer') return access;
    return { ...access, accessRole: 'viewer' };
  }

  return {
    organization(userId: string): Access | null {
      return cap(granted(userId, 'organization', graph.organization.id), graph.organization.disabled);
    },

    folder(userId: string, folderId: string): Access | null {
      const access = better(folderMembership(userId, folderId), byAccessType(userId, folderAccessType(graph.folders, folderId)));
      return cap(access, graph.organization.disabled);
    },

    document(userId: string, document: DocumentNode): Access | null {
      let access = granted(userId, 'document', document.id);
      if (document.folderId !== null) access = better(access, folderMembership(userId, document.folderId));
      access = better(access, byAccessType(userId, documentAccessType(graph.folders, document)));
      return cap(access, graph.organization.disabled || document.disabled);
    },

    /** The access fields of the user's grants on one document, their own and their groups' (may repeat). */
    documentFields(userId: string, documentId: string): string[] {
      return grantsOf(userId, 'document', documentId).flatMap((g) => g.accessFields);
    },
  };
}

/** Access fields as results give them: without repeats, sorted. */
export function fieldList(fields: Iterable<string>): string[] {
  return [...new Set(fields)].sort();
}
