import { z } from 'zod';
import { operation, resultOf } from '../common/envelope.js';
import { ZId, ZResourcePermission } from '../access/schemas.js';

export const ZGenerateTokenData = z
  .object({
    userId: ZId,
    userProperties: z
      .object({
        name: z.string().min(1).max(256),
        email: z.string().min(1).max(320),
        isAdmin: z.boolean().optional().describe('Default false.'),
        photoUrl: z.string().max(2048).optional(),
        color: z.string().max(64).optional(),
        textColor: z.string().max(64).optional(),
        initial: z.string().max(8).optional(),
        organizationId: z.unknown().optional().describe('Not allowed: the organization goes in permissions.resources as an entry of type `organization`.'),
      })
      .strict()
      .superRefine((properties, ctx) => {
        if (properties.organizationId !== undefined) {
          ctx.addIssue({
            code: z.ZodIssueCode.custom,
            path: ['organizationId'],
            message: 'must not be in userProperties: put the organization in permissions.resources as an entry of type organization',
          });
        }
      }),
    permissions: z.object({ resources: z.array(ZResourcePermission).max(100) }).strict(),
  })
  .strict();

export const generateToken = operation({
  path: '/v2/auth/generate_token',
  summary: 'Generate Token',
  description:
    'Issues a user token: a JWT signed with ES256 (public keys at GET /.well-known/jwks.json), valid for 48 hours, carrying the user properties and the resource permissions (accessRole default `editor`; the `context.accessFields` of a document entry, sorted and without repeats, when it has any). The user record is created or updated and the permissions are granted like Add Permissions. `organizationId` inside `userProperties` is INVALID_ARGUMENT: put the organization in `permissions.resources` as an entry of type `organization`. With the permission provider on, each resource is checked with the provider and only granted ones are carried.',
  data: ZGenerateTokenData,
  result: resultOf(z.object({ token: z.string() })),
  example: {
    data: {
      userId: 'user-ada',
      userProperties: { name: 'Ada Lovelace', email: 'ada@example.com', isAdmin: false },
      permissions: {
        resources: [
          { type: 'organization', id: 'org-acme', accessRole: 'viewer' },
          { type: 'document', id: 'doc-q3-plan', organizationId: 'org-acme', accessRole: 'editor' },
        ],
      },
    },
    result: {
      status: 'success',
      message: 'Token generated successfully.',
      data: {
        token:
          'eyJhbGciOiJFUzI1NiIsImtpZCI6ImFwcF8wZThjMWY2YTJiN2Q0YzllNWEzZjFiOGQuNGYxYzlhMmU3YjNkIiwidHlwIjoiSldUIn0.eyJ1c2VyIjp7InVzZXJJZCI6InVzZXItYWRhIiwibmFtZSI6IkFkYSBMb3ZlbGFjZSIsImVtYWlsIjoiYWRhQGV4YW1wbGUuY29tIiwiaW5pdGlhbCI6IkEiLCJpc0FkbWluIjpmYWxzZX0sInBlcm1pc3Npb25zIjp7InJlc291cmNlcyI6W3sidHlwZSI6Im9yZ2FuaXphdGlvbiIsImlkIjoib3JnLWFjbWUiLCJhY2Nlc3NSb2xlIjoidmlld2VyIn0seyJ0eXBlIjoiZG9jdW1lbnQiLCJpZCI6ImRvYy1xMy1wbGFuIiwib3JnYW5pemF0aW9uSWQiOiJvcmctYWNtZSIsImFjY2Vzc1JvbGUiOiJlZGl0b3IifV19LCJhcHAiOiJhcHBfMGU4YzFmNmEyYjdkNGM5ZTVhM2YxYjhkIiwiaXNzIjoiY29sbGFiLWJhY2tlbmQiLCJhdWQiOiJkZDU3YTZjNDJlNDA4YTZlYzNkZWQ5MjZkNjJhODY1OTg1ZTA1ODgzNGFlMTBiZGI0MTg1NmI3MDE4OGFjYjE0Iiwic3ViIjoidXNlci1hZGEiLCJpYXQiOjE3NzM4MjYyMDAsImV4cCI6MTc3Mzk5OTAwMH0.0wsUST2dBHCDmn4GZvzBjxCIjtLJYhQYDSuv-0UfGDJH62Ku3nsK2A1cLJt4_uKVoAdRijFoi9mbF9L3Ig333Q',
      },
    },
  },
});
