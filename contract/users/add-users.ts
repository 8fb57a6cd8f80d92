import { z } from 'zod';
import { operation, resultOf } from '../common/envelope.js';
import { ZId, ZUserInput, ZUserOutcomes, oneLevel } from '../access/schemas.js';

export const ZAddUsersData = z
  .object({
    organizationId: ZId,
    createOrganization: z.boolean().optional().describe('Accepted for compatibility: a missing organization is always created.'),
    documentId: ZId.optional().describe('Add the users to this document only.'),
    createDocument: z.boolean().optional().describe('Create the document when it does not exist.'),
    folderId: ZId.optional().describe('Add the users to this folder only; give documentId or folderId, not both.'),
    createFolder: z.boolean().optional().describe('Create the folder (at the top of the organization) when it does not exist.'),
    users: z.array(ZUserInput).min(1).max(1000),
  })
  .strict()
  .refine(...oneLevel);

export const addUsers = operation({
  path: '/v2/users/add',
  summary: 'Add Users',
  description:
    'Adds users to the organization (access to all its documents except `restricted` ones, and its contact list), or with `folderId` to that folder only, or with `documentId` to that document only (and its contact list). Adding at a lower level never adds at the organization level. A missing organization is created; a missing folder or document (without createFolder/createDocument) is reported as `success: false` in every user entry of a successful response, and nothing is written. Each request is one transaction. User profiles are created or updated; `accessRole` is the role at that level (default `editor` for a new member; an existing member keeps their role unless one is sent). Result keyed by user ID.',
  data: ZAddUsersData,
  result: resultOf(ZUserOutcomes),
  example: {
    data: {
      organizationId: 'org-acme',
      users: [
        { userId: 'user-ada', name: 'Ada Lovelace', email: 'ada@example.com', accessRole: 'viewer' },
        { userId: 'user-grace', name: 'Grace Hopper', email: 'grace@example.com' },
      ],
    },
    result: {
      status: 'success',
      message: 'Users added.',
      data: {
        'user-ada': { success: true, id: 'user-ada', message: 'User added to organization org-acme.' },
        'user-grace': { success: true, id: 'user-grace', message: 'User added to organization org-acme.' },
      },
    },
  },
});
