import { z } from 'zod';
import { operation, resultOf } from '../common/envelope.js';
import { ZId, ZUserInput, ZUserOutcomes, oneLevel } from '../access/schemas.js';

export const ZUpdateUsersData = z
  .object({
    organizationId: ZId.optional().describe('Required to change accessRole: the role at the organization, or with folderId/documentId at that level.'),
    documentId: ZId.optional(),
    folderId: ZId.optional(),
    users: z.array(ZUserInput).min(1).max(1000),
  })
  .strict()
  .refine(...oneLevel)
  .refine((d) => d.organizationId !== undefined || (d.documentId === undefined && d.folderId === undefined), {
    message: 'is required with documentId or folderId',
    path: ['organizationId'],
  })
  .refine((d) => d.organizationId !== undefined || d.users.every((u) => u.accessRole === undefined), {
    message: 'is required to change accessRole',
    path: ['organizationId'],
  });

export const updateUsers = operation({
  path: '/v2/users/update',
  summary: 'Update Users',
  description:
    'Updates user profiles (name, email, initial, photoUrl, color, textColor) and, with organizationId (and folderId or documentId), the role at that level — the only REST way besides Add Users, Add Permissions and Generate Token to set `accessRole`. An unknown user, or a role change for a user who is not a member at that level, gets `success: false` inside the successful response.',
  data: ZUpdateUsersData,
  result: resultOf(ZUserOutcomes),
  // A profile change only: without organizationId no role changes.
  example: {
    data: { users: [{ userId: 'user-ada', photoUrl: 'https://example.com/avatars/ada.png' }] },
    result: { status: 'success', message: 'Users updated.', data: { 'user-ada': { success: true, id: 'user-ada', message: 'User updated.' } } },
  },
});
