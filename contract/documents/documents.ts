import { z } from 'zod';
import { emptyResult, operation, resultOf } from '../common/envelope.js';
import { ZAccessType, ZDocument, ZId } from '../access/schemas.js';
import { DOC_Q3_PLAN, DOC_ROADMAP } from '../access/examples.js';

export const addDocument = operation({
  path: '/v2/organizations/documents/add',
  summary: 'Add Document',
  description:
    'Creates a document (and the organization when missing), at the top of the organization or in `folderId`. `documentName` defaults to the ID; `accessType` (default `organizationPrivate`) applies while the document is not in a folder. ALREADY_EXISTS when the ID is taken; NOT_FOUND for an unknown folder.',
  data: z
    .object({ organizationId: ZId, documentId: ZId, documentName: z.string().min(1).max(256).optional(), folderId: ZId.optional(), accessType: ZAccessType.optional() })
    .strict(),
  result: resultOf(ZDocument),
  example: {
    data: { organizationId: 'org-acme', documentId: 'doc-roadmap', documentName: 'Product Roadmap' },
    result: {
      status: 'success',
      message: 'Document added.',
      data: { ...DOC_ROADMAP, accessType: 'organizationPrivate', lastUpdated: DOC_ROADMAP.createdAt },
    },
  },
});

export const updateDocument = operation({
  path: '/v2/organizations/documents/update',
  summary: 'Update Document',
  description: 'Renames a document. NOT_FOUND for an unknown document.',
  data: z.object({ organizationId: ZId, documentId: ZId, documentName: z.string().min(1).max(256) }).strict(),
  result: resultOf(ZDocument),
  // A document created by a grant or a first comment is named after its ID until renamed.
  example: {
    data: { organizationId: 'org-acme', documentId: 'doc-q3-plan', documentName: 'Q3 Plan' },
    result: { status: 'success', message: 'Document updated.', data: { ...DOC_Q3_PLAN, lastUpdated: Date.UTC(2026, 0, 20, 9, 0) } },
  },
});

export const deleteDocument = operation({
  path: '/v2/organizations/documents/delete',
  summary: 'Delete Document',
  description: 'Deletes a document and its grants. NOT_FOUND for an unknown document.',
  data: z.object({ organizationId: ZId, documentId: ZId }).strict(),
  result: emptyResult(),
  example: { data: { organizationId: 'org-acme', documentId: 'doc-roadmap' }, result: { status: 'success', message: 'Document deleted.' } },
});

export const moveDocument = operation({
  path: '/v2/organizations/documents/move',
  summary: 'Move Document',
  description: 'Moves a document into a folder, or to the top of the organization with `folderId: "root"`. Inside a folder it takes the folder\'s access type. NOT_FOUND for an unknown document or folder.',
  data: z.object({ organizationId: ZId, documentId: ZId, folderId: ZId.describe('A folder ID or `root`.') }).strict(),
  result: resultOf(ZDocument),
  example: {
    data: { organizationId: 'org-acme', documentId: 'doc-q3-plan', folderId: 'folder-planning' },
    result: { status: 'success', message: 'Document moved.', data: DOC_Q3_PLAN },
  },
});

export const updateDocumentAccess = operation({
  path: '/v2/organizations/documents/access/update',
  summary: 'Update Document Access',
  description:
    'Sets the access type of a document at the top of the organization. A document inside a folder takes its folder\'s access type: changing it there is FAILED_PRECONDITION (change the folder, or move the document to `root`). NOT_FOUND for an unknown document.',
  data: z.object({ organizationId: ZId, documentId: ZId, accessType: ZAccessType }).strict(),
  result: resultOf(ZDocument),
  example: {
    data: { organizationId: 'org-acme', documentId: 'doc-roadmap', accessType: 'restricted' },
    result: { status: 'success', message: 'Document access updated.', data: DOC_ROADMAP },
  },
});

export const updateDocumentDisableState = operation({
  path: '/v2/organizations/documents/access/disablestate/update',
  summary: 'Update Document Disabled State',
  description: 'Disables or re-enables a document. While disabled, access to it resolves to at most `viewer` (read-only). NOT_FOUND for an unknown document.',
  data: z.object({ organizationId: ZId, documentId: ZId, disabled: z.boolean() }).strict(),
  result: resultOf(ZDocument),
  // The message follows `disabled`: `Document enabled.` when re-enabling.
  example: {
    data: { organizationId: 'org-acme', documentId: 'doc-roadmap', disabled: true },
    result: { status: 'success', message: 'Document disabled.', data: { ...DOC_ROADMAP, disabled: true, lastUpdated: Date.UTC(2026, 5, 30, 18, 5) } },
  },
});
