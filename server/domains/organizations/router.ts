import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract/index.js';
import { applicationOf } from '../../http/context.js';
import { done, ok, paged } from '../../http/respond.js';
import type { OrganizationsService } from './service.js';

export function organizationsRouter(service: OrganizationsService) {
  return initServer().router(contract.organizations, {
    addOrganization: async ({ req, body }) => ok('Organization added.', await service.addOrganization(applicationOf(req), body.data)),
    getOrganizations: async ({ req, body }) => paged('Organizations retrieved successfully.', await service.getOrganizations(applicationOf(req), body.data)),
    updateOrganization: async ({ req, body }) => ok('Organization updated.', await service.updateOrganization(applicationOf(req), body.data)),
    deleteOrganization: async ({ req, body }) => {
      await service.deleteOrganization(applicationOf(req), body.data);
      return done('Organization deleted.');
    },
    updateOrganizationDisableState: async ({ req, body }) =>
      ok(
        body.data.disabled ? 'Organization disabled.' : 'Organization enabled.',
        await service.updateOrganization(applicationOf(req), { organizationId: body.data.organizationId, disabled: body.data.disabled }),
      ),

    getFolders: async ({ req, body }) => ok('Folders retrieved successfully.', await service.getFolders(applicationOf(req), body.data)),
    addFolder: async ({ req, body }) => ok('Folder added.', await service.addFolder(applicationOf(req), body.data)),
    updateFolder: async ({ req, body }) => ok('Folder updated.', await service.updateFolder(applicationOf(req), body.data)),
    deleteFolder: async ({ req, body }) => {
      await service.deleteFolder(applicationOf(req), body.data);
      return done('Folder deleted.');
    },
    updateFolderAccess: async ({ req, body }) => ok('Folder access updated.', await service.updateFolderAccess(applicationOf(req), body.data)),

    getDocuments: async ({ req, body }) => paged('Documents retrieved successfully.', await service.getDocuments(applicationOf(req), body.data)),
    addDocument: async ({ req, body }) => ok('Document added.', await service.addDocument(applicationOf(req), body.data)),
    updateDocument: async ({ req, body }) => ok('Document updated.', await service.updateDocument(applicationOf(req), body.data)),
    deleteDocument: async ({ req, body }) => {
      await service.deleteDocument(applicationOf(req), body.data);
      return done('Document deleted.');
    },
    moveDocument: async ({ req, body }) => ok('Document moved.', await service.moveDocument(applicationOf(req), body.data)),
    updateDocumentAccess: async ({ req, body }) => ok('Document access updated.', await service.updateDocumentAccess(applicationOf(req), body.data)),
    updateDocumentDisableState: async ({ req, body }) =>
      ok(
        body.data.disabled ? 'Document disabled.' : 'Document enabled.',
        await service.updateDocument(applicationOf(req), { organizationId: body.data.organizationId, documentId: body.data.documentId, disabled: body.data.disabled }),
      ),
  });
}
