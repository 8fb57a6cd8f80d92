import type { TDocument, TFolder, TOrganization } from '../../../contract/access/schemas.js';
import type { DataOf } from '../../../contract/common/envelope.js';
import type { addDocument, deleteDocument, moveDocument, updateDocument, updateDocumentAccess, updateDocumentDisableState } from '../../../contract/documents/documents.js';
import type { getDocuments } from '../../../contract/documents/get-documents.js';
import type { addFolder, deleteFolder, updateFolder, updateFolderAccess } from '../../../contract/folders/folders.js';
import type { getFolders } from '../../../contract/folders/get-folders.js';
import type { addOrganization, deleteOrganization, getOrganizations, updateOrganization, updateOrganizationDisableState } from '../../../contract/organizations/organizations.js';
import { createdOnce } from '../../db/errors.js';
import { creationCursor } from '../../db/keyset.js';
import { alreadyExists, failedPrecondition, invalidArgument } from '../../lib/app-error.js';
import type { PageTokens } from '../../lib/page-token.js';
import type { FeatureGate } from '../accounts/features.js';
import type { AccessLookups } from '../access/lookups.js';
import type { DocumentsRepo } from '../access/repos/documents.js';
import type { FoldersRepo } from '../access/repos/folders.js';
import type { OrganizationsRepo } from '../access/repos/organizations.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { OwnedDataRegistry } from '../../platform/owned-data.js';
import { folderNodes } from '../access/tree.js';
import { folderTree, ROOT, toDocument, toOrganization } from './shapes.js';
import type { Caller } from '../../platform/caller.js';

/**
 * Update Organization and Update Organization Disable State both end in
 * updateOrganization: the name of the one, the disabled flag of the other.
 */
type OrganizationChange = Pick<DataOf<typeof updateOrganization>, 'organizationId'> &
  Partial<Pick<DataOf<typeof updateOrganization>, 'organizationName'> & Pick<DataOf<typeof updateOrganizationDisableState>, 'disabled'>>;

/** The same for Update Document and Update Document Disable State. */
type DocumentChange = Pick<DataOf<typeof updateDocument>, 'organizationId' | 'documentId'> &
  Partial<Pick<DataOf<typeof updateDocument>, 'documentName'> & Pick<DataOf<typeof updateDocumentDisableState>, 'disabled'>>;

export function createOrganizationsService(deps: {
  organizations: Pick<OrganizationsRepo, 'createOrganization' | 'ensureOrganization' | 'listOrganizations' | 'updateOrganization' | 'deleteOrganization' | 'lockOrganization'>;
  folders: Pick<FoldersRepo, 'listFolders' | 'createFolder' | 'updateFolder' | 'deleteFolders'>;
  documents: Pick<DocumentsRepo, 'listDocuments' | 'createDocument' | 'updateDocument'>;
  find: Pick<AccessLookups, 'organization' | 'folder' | 'document'>;
  uow: UnitOfWork;
  features: FeatureGate;
  pageTokens: PageTokens;
  owned: OwnedDataRegistry;
}) {
  const { organizations, folders, documents, find, uow, features, pageTokens, owned } = deps;

  const organizationOrThrow = (app: Caller, organizationId: string) => find.organization(app.apiKeyId, organizationId);
  const folderOrThrow = (app: Caller, organizationId: string, folderId: string) => find.folder(app.apiKeyId, organizationId, folderId);
  const documentOrThrow = (app: Caller, organizationId: string, documentId: string) => find.document(app.apiKeyId, organizationId, documentId);

  async function folderRecord(app: Caller, organizationId: string, folderId: string, depth = 0): Promise<TFolder> {
    const tree = folderTree(await folders.listFolders(app.apiKeyId, organizationId), app.apiKey);
    // The listing already holds the folder; the lookup only runs to raise NOT_FOUND.
    return tree.record(tree.byId.get(folderId) ?? (await folderOrThrow(app, organizationId, folderId)), depth);
  }

  async function documentRecord(app: Caller, row: Parameters<typeof toDocument>[0]): Promise<TDocument> {
    return toDocument(row, row.folderId === null ? new Map() : folderNodes(await folders.listFolders(app.apiKeyId, row.organizationId)));
  }

  /** `root` (or nothing) is the top of the organization; anything else must be a folder of it. */
  async function parentIdFrom(app: Caller, organizationId: string, parentFolderId: string | undefined): Promise<string | null> {
    if (parentFolderId === undefined || parentFolderId === ROOT) return null;
    await folderOrThrow(app, organizationId, parentFolderId);
    return parentFolderId;
  }

  /** Deletes a folder and every folder below it, with their documents and grants; inside a unit of work. */
  async function deleteFolderTree(app: Caller, input: DataOf<typeof deleteFolder>): Promise<void> {
    await organizations.lockOrganization(app.apiKeyId, input.organizationId);
    await folderOrThrow(app, input.organizationId, input.folderId);
    const rows = await folders.listFolders(app.apiKeyId, input.organizationId);
    // The folder and every folder below it.
    const doomed = new Set([input.folderId]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const row of rows) {
        if (row.parentId !== null && doomed.has(row.parentId) && !doomed.has(row.id)) {
          doomed.add(row.id);
          grew = true;
        }
      }
    }
    const documentIds = await folders.deleteFolders(app.apiKeyId, input.organizationId, [...doomed]);
    await owned.deleteDocuments({ apiKeyId: app.apiKeyId, organizationId: input.organizationId, documentIds });
  }

  return {
    // ── organizations ──
    async addOrganization(app: Caller, input: DataOf<typeof addOrganization>): Promise<TOrganization> {
      const row = await createdOnce(`organization ${input.organizationId}`, () =>
        organizations.createOrganization(app.apiKeyId, input.organizationId, input.organizationName ?? input.organizationId),
      );
      return toOrganization(row);
    },

    async getOrganizations(app: Caller, input: DataOf<typeof getOrganizations>) {
      const scope = ['organizations', app.apiKeyId, (input.organizationIds ?? []).join('\u0000')].join('\n');
      const page = await pageTokens.page(
        scope,
        input,
        (after, take) => organizations.listOrganizations(app.apiKeyId, { ids: input.organizationIds, after, take }),
        creationCursor,
      );
      return { items: page.items.map(toOrganization), pageToken: page.pageToken };
    },

    async updateOrganization(app: Caller, input: OrganizationChange): Promise<TOrganization> {
      await organizationOrThrow(app, input.organizationId);
      return toOrganization(await organizations.updateOrganization(app.apiKeyId, input.organizationId, { name: input.organizationName, disabled: input.disabled }));
    },

    async deleteOrganization(app: Caller, input: DataOf<typeof deleteOrganization>): Promise<void> {
      await uow.run(async () => {
        // The organization row first, as every structural change takes it: in any other
        // order a delete and a folder move lock each other's rows (a deadlock on PostgreSQL).
        await organizations.lockOrganization(app.apiKeyId, input.organizationId);
        await organizationOrThrow(app, input.organizationId);
        await owned.deleteOrganization({ apiKeyId: app.apiKeyId, organizationId: input.organizationId });
        await organizations.deleteOrganization(app.apiKeyId, input.organizationId);
      });
    },

    // ── folders ──
    async getFolders(app: Caller, input: DataOf<typeof getFolders>): Promise<TFolder[]> {
      await features.require(app.apiKeyId, 'advancedQueries');
      await organizationOrThrow(app, input.organizationId);
      const rows = await folders.listFolders(app.apiKeyId, input.organizationId);
      const tree = folderTree(rows, app.apiKey);
      const depth = input.maxDepth ?? 1;
      if (input.folderId === undefined) return rows.map((row) => tree.record(row, depth));
      return [tree.record(tree.byId.get(input.folderId) ?? (await folderOrThrow(app, input.organizationId, input.folderId)), depth)];
    },

    async addFolder(app: Caller, input: DataOf<typeof addFolder>): Promise<TFolder> {
      return uow.run(async () => {
        await organizations.ensureOrganization(app.apiKeyId, input.organizationId);
        const parentId = await parentIdFrom(app, input.organizationId, input.parentFolderId);
        await createdOnce(`folder ${input.folderId}`, () =>
          folders.createFolder({
            apiKeyId: app.apiKeyId,
            organizationId: input.organizationId,
            id: input.folderId,
            name: input.folderName ?? input.folderId,
            parentId,
            accessType: input.accessType ?? 'organizationPrivate',
            inheritAccessFromParent: input.inheritAccessFromParent ?? parentId !== null,
          }),
        );
        return folderRecord(app, input.organizationId, input.folderId);
      });
    },

    async updateFolder(app: Caller, input: DataOf<typeof updateFolder>): Promise<TFolder> {
      // The cycle check and the move together: two crossing moves must not both pass the check.
      return uow.run(async () => {
        await organizations.lockOrganization(app.apiKeyId, input.organizationId);
        await folderOrThrow(app, input.organizationId, input.folderId);
        let parentId: string | null | undefined;
        if (input.parentFolderId !== undefined) {
          parentId = await parentIdFrom(app, input.organizationId, input.parentFolderId);
          if (parentId !== null) {
            const tree = folderTree(await folders.listFolders(app.apiKeyId, input.organizationId), app.apiKey);
            const chain = [...tree.record(tree.byId.get(parentId)!, 0).ancestors, parentId];
            if (chain.includes(input.folderId)) throw invalidArgument(`folder ${input.folderId} cannot move under itself or one of its subfolders`);
          }
        }
        await folders.updateFolder(app.apiKeyId, input.organizationId, input.folderId, { name: input.folderName, parentId });
        return folderRecord(app, input.organizationId, input.folderId);
      });
    },

    async deleteFolder(app: Caller, input: DataOf<typeof deleteFolder>): Promise<void> {
      await uow.run(() => deleteFolderTree(app, input));
    },

    async updateFolderAccess(app: Caller, input: DataOf<typeof updateFolderAccess>): Promise<TFolder> {
      await folderOrThrow(app, input.organizationId, input.folderId);
      await folders.updateFolder(app.apiKeyId, input.organizationId, input.folderId, {
        accessType: input.accessType,
        inheritAccessFromParent: input.inheritAccessFromParent,
      });
      return folderRecord(app, input.organizationId, input.folderId);
    },

    // ── documents ──
    async getDocuments(app: Caller, input: DataOf<typeof getDocuments>) {
      await features.require(app.apiKeyId, 'advancedQueries');
      await organizationOrThrow(app, input.organizationId);
      if (input.folderId !== undefined) await folderOrThrow(app, input.organizationId, input.folderId);
      const scope = ['documents', app.apiKeyId, input.organizationId, input.folderId ?? '', (input.documentIds ?? []).join('\u0000')].join('\n');
      const [page, folderRows] = await Promise.all([
        pageTokens.page(
          scope,
          input,
          (after, take) => documents.listDocuments(app.apiKeyId, input.organizationId, { ids: input.documentIds, folderId: input.folderId, after, take }),
          creationCursor,
        ),
        folders.listFolders(app.apiKeyId, input.organizationId),
      ]);
      const nodes = folderNodes(folderRows);
      return { items: page.items.map((row) => toDocument(row, nodes)), pageToken: page.pageToken };
    },

    async addDocument(app: Caller, input: DataOf<typeof addDocument>): Promise<TDocument> {
      return uow.run(async () => {
        await organizations.ensureOrganization(app.apiKeyId, input.organizationId);
        const folderId = await parentIdFrom(app, input.organizationId, input.folderId);
        const row = await createdOnce(`document ${input.documentId}`, () =>
          documents.createDocument({
            apiKeyId: app.apiKeyId,
            organizationId: input.organizationId,
            id: input.documentId,
            name: input.documentName ?? input.documentId,
            folderId,
            accessType: input.accessType ?? 'organizationPrivate',
          }),
        );
        return documentRecord(app, row);
      });
    },

    async updateDocument(app: Caller, input: DocumentChange): Promise<TDocument> {
      await documentOrThrow(app, input.organizationId, input.documentId);
      const row = await documents.updateDocument(app.apiKeyId, input.organizationId, input.documentId, { name: input.documentName, disabled: input.disabled });
      return documentRecord(app, row);
    },

    async deleteDocument(app: Caller, input: DataOf<typeof deleteDocument>): Promise<void> {
      await uow.run(async () => {
        await documentOrThrow(app, input.organizationId, input.documentId);
        await owned.deleteDocuments({ apiKeyId: app.apiKeyId, organizationId: input.organizationId, documentIds: [input.documentId] });
      });
    },

    async moveDocument(app: Caller, input: DataOf<typeof moveDocument>): Promise<TDocument> {
      await documentOrThrow(app, input.organizationId, input.documentId);
      const folderId = await parentIdFrom(app, input.organizationId, input.folderId);
      return documentRecord(app, await documents.updateDocument(app.apiKeyId, input.organizationId, input.documentId, { folderId }));
    },

    async updateDocumentAccess(app: Caller, input: DataOf<typeof updateDocumentAccess>): Promise<TDocument> {
      const document = await documentOrThrow(app, input.organizationId, input.documentId);
      if (document.folderId !== null) {
        throw failedPrecondition(
          `document ${input.documentId} is in folder ${document.folderId} and takes its access type; change the folder's access type or move the document to root`,
        );
      }
      return documentRecord(app, await documents.updateDocument(app.apiKeyId, input.organizationId, input.documentId, { accessType: input.accessType }));
    },
  };
}

export type OrganizationsService = ReturnType<typeof createOrganizationsService>;
