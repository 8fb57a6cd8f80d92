import type { TAccessType } from '../../../contract/access/schemas.js';
import type { DocumentNode, FolderNode } from './resolve.js';

/** The columns of a folder or document row that access depends on: rows → the resolver's nodes. */

export function folderNodes(rows: { id: string; parentId: string | null; accessType: string; inheritAccessFromParent: boolean }[]): Map<string, FolderNode> {
  return new Map(
    rows.map((r) => [r.id, { id: r.id, parentId: r.parentId, accessType: r.accessType as TAccessType, inheritAccessFromParent: r.inheritAccessFromParent }]),
  );
}

export function documentNode(row: { id: string; folderId: string | null; accessType: string; disabled: boolean }): DocumentNode {
  return { id: row.id, folderId: row.folderId, accessType: row.accessType as TAccessType, disabled: row.disabled };
}

/** A folder and its ancestors, nearest first; stops at a missing folder or a cycle. */
export function ancestry(folders: Map<string, FolderNode>, folderId: string | null): string[] {
  const chain: string[] = [];
  const seen = new Set<string>();
  let id = folderId;
  while (id !== null && !seen.has(id)) {
    const folder = folders.get(id);
    if (!folder) break;
    seen.add(id);
    chain.push(id);
    id = folder.parentId;
  }
  return chain;
}
