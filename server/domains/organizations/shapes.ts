import type { TDocument, TFolder, TOrganization } from '../../../contract/access/schemas.js';
import { documentAccessType, folderAccessType, type FolderNode } from '../access/resolve.js';
import { documentNode, folderNodes } from '../access/tree.js';

/** Rows → contract shapes. Rows never leave the server as they are. */

interface OrganizationRow {
  id: string;
  name: string;
  disabled: boolean;
  createdAt: bigint;
  updatedAt: bigint;
}

export interface FolderRow {
  organizationId: string;
  id: string;
  name: string;
  parentId: string | null;
  accessType: string;
  inheritAccessFromParent: boolean;
  createdAt: bigint;
  updatedAt: bigint;
}

export interface DocumentRow {
  organizationId: string;
  id: string;
  name: string;
  folderId: string | null;
  accessType: string;
  disabled: boolean;
  createdAt: bigint;
  updatedAt: bigint;
}

export const ROOT = 'root';

export function toOrganization(row: OrganizationRow): TOrganization {
  return { organizationId: row.id, organizationName: row.name, disabled: row.disabled, createdAt: Number(row.createdAt), lastUpdated: Number(row.updatedAt) };
}

/** Folder records with ancestors and subfolders, built from every folder of the organization. */
export function folderTree(rows: FolderRow[], apiKey: string) {
  const nodes = folderNodes(rows);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const children = new Map<string, FolderRow[]>();
  for (const row of rows) {
    const key = row.parentId ?? ROOT;
    children.set(key, [...(children.get(key) ?? []), row]);
  }

  function ancestors(row: FolderRow): string[] {
    const chain: string[] = [];
    const seen = new Set<string>([row.id]);
    let parentId = row.parentId;
    while (parentId !== null && !seen.has(parentId)) {
      seen.add(parentId);
      chain.unshift(parentId);
      parentId = byId.get(parentId)?.parentId ?? null;
    }
    return [ROOT, ...chain];
  }

  function record(row: FolderRow, depth: number): TFolder {
    const folder: TFolder = {
      folderId: row.id,
      folderName: row.name,
      organizationId: row.organizationId,
      parentFolderId: row.parentId ?? ROOT,
      apiKey,
      createdAt: Number(row.createdAt),
      lastUpdated: Number(row.updatedAt),
      ancestors: ancestors(row),
      accessType: folderAccessType(nodes, row.id),
      inheritAccessFromParent: row.inheritAccessFromParent,
    };
    if (depth > 0) folder.subFolders = (children.get(row.id) ?? []).map((child) => record(child, depth - 1));
    return folder;
  }

  return { nodes, record, byId };
}

export function toDocument(row: DocumentRow, folders: Map<string, FolderNode>): TDocument {
  return {
    id: row.id,
    documentName: row.name,
    disabled: row.disabled,
    accessType: documentAccessType(folders, documentNode(row)),
    organizationId: row.organizationId,
    folderId: row.folderId,
    createdAt: Number(row.createdAt),
    lastUpdated: Number(row.updatedAt),
  };
}
