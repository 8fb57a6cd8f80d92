import { z } from 'zod';
import { operation, pagedResultOf } from '../common/envelope.js';
import { ZPageSize, ZPageToken } from '../common/paging.js';
import { ZAccessRole, ZId, oneLevel } from '../access/schemas.js';
import { named } from '../common/named.js';

export const ZGetUsersData = z
  .object({
    organizationId: ZId,
    documentId: ZId.optional().describe('The document\'s contact list instead of the organization\'s.'),
    folderId: ZId.optional().describe('The folder\'s members instead of the organization\'s.'),
    userIds: z.array(ZId).min(1).max(100).optional(),
    pageSize: ZPageSize,
    pageToken: ZPageToken,
  })
  .strict()
  .refine(...oneLevel);

export const ZUserRecord = named('User', z.object({
  userId: z.string(),
  name: z.string(),
  email: z.string(),
  initial: z.string(),
  accessRole: ZAccessRole.describe('Role at the requested level.'),
  expiresAt: z.number().optional().describe('Unix seconds, for temporary membership.'),
  photoUrl: z.string().optional(),
  color: z.string().optional(),
  textColor: z.string().optional(),
}));

export const getUsers = operation({
  path: '/v2/users/get',
  summary: 'Get Users',
  description:
    'The members (contact list) of the organization, or of one folder or document, with their role at that level, oldest membership first. Expired temporary members are left out. Paged by an opaque pageToken (null on the last page).',
  data: ZGetUsersData,
  result: pagedResultOf(ZUserRecord),
  example: {
    data: { organizationId: 'org-acme' },
    result: {
      status: 'success',
      message: 'Users retrieved successfully.',
      data: [
        { userId: 'user-ada', name: 'Ada Lovelace', email: 'ada@example.com', initial: 'A', accessRole: 'viewer', photoUrl: 'https://example.com/avatars/ada.png' },
        { userId: 'user-grace', name: 'Grace Hopper', email: 'grace@example.com', initial: 'G', accessRole: 'editor' },
      ],
      pageToken: null,
    },
  },
});
