import type { TContentMetadata, TUserRef } from '../common/content.js';
import type { TDocument, TFolder, TOrganization } from './schemas.js';

/**
 * The one story the operation examples of the API reference tell, written
 * once so that the examples of different operations agree with each other:
 * the organization Acme Inc. with its folder and two documents, and two
 * users. Times are Unix milliseconds, as the records give them.
 */

/**
 * The calling application's API key as results echo it (folder records, Get
 * Auth Tokens). A placeholder in the real format (`ak_` + 32 base64url
 * characters, server/lib/crypto.ts), so no reader mistakes it for a live key.
 */
export const EXAMPLE_API_KEY = 'ak_EXAMPLE_api_key_0000000000000000';

export const ADA: TUserRef = { userId: 'user-ada', name: 'Ada Lovelace', email: 'ada@example.com' };
export const GRACE: TUserRef = { userId: 'user-grace', name: 'Grace Hopper', email: 'grace@example.com' };

export const ACME: TOrganization = {
  organizationId: 'org-acme',
  organizationName: 'Acme Inc.',
  disabled: false,
  createdAt: Date.UTC(2026, 0, 12, 9, 0),
  lastUpdated: Date.UTC(2026, 0, 12, 9, 0),
};

export const FOLDER_PLANNING: TFolder = {
  folderId: 'folder-planning',
  folderName: 'Planning',
  organizationId: 'org-acme',
  parentFolderId: 'root',
  apiKey: EXAMPLE_API_KEY,
  createdAt: Date.UTC(2026, 0, 12, 9, 5),
  lastUpdated: Date.UTC(2026, 0, 12, 9, 5),
  ancestors: ['root'],
  accessType: 'organizationPrivate',
  inheritAccessFromParent: false,
};

/** In folder-planning, so it has the folder's access type. */
export const DOC_Q3_PLAN: TDocument = {
  id: 'doc-q3-plan',
  documentName: 'Q3 Plan',
  disabled: false,
  accessType: 'organizationPrivate',
  organizationId: 'org-acme',
  folderId: 'folder-planning',
  createdAt: Date.UTC(2026, 0, 12, 9, 10),
  lastUpdated: Date.UTC(2026, 0, 12, 9, 12),
};

/** At the top of the organization, restricted to the users added to it. */
export const DOC_ROADMAP: TDocument = {
  id: 'doc-roadmap',
  documentName: 'Product Roadmap',
  disabled: false,
  accessType: 'restricted',
  organizationId: 'org-acme',
  folderId: null,
  createdAt: Date.UTC(2026, 0, 14, 11, 20),
  lastUpdated: Date.UTC(2026, 0, 14, 11, 25),
};

/** `metadata` of what the examples put on the Q3 plan: notifications, activity records, recordings. */
export const Q3_PLAN_METADATA: TContentMetadata = { apiKey: EXAMPLE_API_KEY, documentId: 'doc-q3-plan', organizationId: 'org-acme' };
