import { z } from 'zod';
import { named, namedLater } from '../common/named.js';

/** Shapes shared by the identity and access operations. */

/**
 * Caller-chosen identifiers (organizationId, documentId, userId, …). Results
 * are JSON objects keyed by them, where `__proto__` is no ordinary key: zod
 * drops it and a JavaScript client reading `result["__proto__"]` may get the
 * object's prototype. So it is refused here, once for every ID field; any
 * other name (`constructor`, `toString`, …) is an ordinary ID.
 */
export const ZId = z
  .string()
  .min(1)
  .max(256)
  .regex(/^(?!__proto__$)/, { message: 'must not be "__proto__": results are JSON objects keyed by ID, where that key is the object\'s prototype' });

export const ZAccessRole = named('AccessRole', z.enum(['viewer', 'editor']).describe('`viewer` is read-only, `editor` read/write.'));
export type TAccessRole = z.infer<typeof ZAccessRole>;

export const ZAccessType = named(
  'AccessType',
  z
    .enum(['public', 'restricted', 'organizationPrivate'])
    .describe('`public`: anyone may view; `organizationPrivate`: organization members; `restricted`: only users added to the resource itself.'),
);
export type TAccessType = z.infer<typeof ZAccessType>;

export const ZResourceType = named('ResourceType', z.enum(['organization', 'folder', 'document']));
export type TResourceType = z.infer<typeof ZResourceType>;

/**
 * Unix time in seconds, as the specification fixes for permission expiry.
 * Bounded explicitly so every accepted value stores on both databases (a
 * 64-bit column) and reads back exactly: at most 9999-12-31T23:59:59Z.
 */
export const MAX_UNIX_SECONDS = 253_402_300_799;
export const ZUnixSeconds = z
  .number()
  .int()
  .min(1)
  .max(MAX_UNIX_SECONDS)
  .describe(`Unix timestamp in seconds after which the permission lapses; at most ${MAX_UNIX_SECONDS} (9999-12-31).`);

/** Operations that act on one level take `documentId` or `folderId`, never both (the specification's rule). */
export const oneLevel: [(d: { documentId?: string; folderId?: string }) => boolean, { message: string; path: string[] }] = [
  (d) => d.documentId === undefined || d.folderId === undefined,
  { message: 'give documentId or folderId, not both', path: ['folderId'] },
];

/** A user as Add Users and Update Users accept it. */
export const ZUserInput = named(
  'UserInput',
  z
    .object({
      userId: ZId,
      name: z.string().max(256).optional(),
      email: z.string().max(320).optional(),
      initial: z.string().max(8).optional().describe('Derived from `name` when omitted.'),
      accessRole: ZAccessRole.optional().describe('Role at the level the user is added to; default `editor`.'),
      photoUrl: z.string().max(2048).optional(),
      color: z.string().max(64).optional(),
      textColor: z.string().max(64).optional(),
    })
    .strict(),
);
export type TUserInput = z.infer<typeof ZUserInput>;

/**
 * Feature-level access context: `<fieldName>:<value>` entries stored with a
 * document grant (e.g. `team:design`), which features such as comment threads
 * match against the context they were created with. Bounded so a grant row
 * stays small: at most 50 entries of at most 256 characters each; the name is
 * everything before the first `:` and neither it nor the value may be empty
 * (the value may itself contain `:`).
 */
export const MAX_ACCESS_FIELDS = 50;
export const MAX_ACCESS_FIELD_LENGTH = 256;
export const ZAccessField = z
  .string()
  .max(MAX_ACCESS_FIELD_LENGTH)
  .regex(/^[^:]+:[\s\S]+$/, { message: 'must be <fieldName>:<value> with a non-empty name and value' });

export const ZAccessContext = named(
  'AccessContext',
  z
    .object({
      accessFields: z
        .array(ZAccessField)
        .max(MAX_ACCESS_FIELDS)
        .describe(`Entries of the form \`<fieldName>:<value>\` (at most ${MAX_ACCESS_FIELDS}, each at most ${MAX_ACCESS_FIELD_LENGTH} characters).`),
    })
    .strict(),
);
export type TAccessContext = z.infer<typeof ZAccessContext>;

/** A resource permission entry (Generate Token, Add Permissions, Remove Permissions). */
export const ZResourcePermission = named(
  'ResourcePermission',
  z
    .object({
      type: ZResourceType,
      id: ZId,
      organizationId: ZId.optional().describe('Required when type is `document` or `folder`.'),
      accessRole: ZAccessRole.optional().describe('Default `editor`.'),
      expiresAt: ZUnixSeconds.optional(),
      context: ZAccessContext.optional().describe(
        'Document entries only: the feature-level access context granted with the document. Granting again replaces it (no `context` clears it). Ignored by Remove Permissions.',
      ),
    })
    .strict()
    .superRefine((entry, ctx) => {
      if (entry.context !== undefined && entry.type !== 'document') {
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['context'], message: `is only allowed on document entries, not on type ${entry.type}` });
      }
      if (entry.type !== 'organization' && entry.organizationId === undefined) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['organizationId'], message: `is required when type is ${entry.type}` });
      }
      if (entry.type === 'organization' && entry.organizationId !== undefined && entry.organizationId !== entry.id) {
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['organizationId'], message: 'must equal id for an organization entry (or be omitted)' });
      }
    }),
);
export type TResourcePermission = z.infer<typeof ZResourcePermission>;

/** Per-user outcome of Add Users and Update Users, keyed by user ID. */
export const ZUserOutcomes = z.record(named('UserOutcome', z.object({ success: z.boolean(), id: z.string(), message: z.string() })));

export const ZOrganization = named('Organization', z.object({
  organizationId: z.string(),
  organizationName: z.string(),
  disabled: z.boolean(),
  createdAt: z.number().describe('Unix milliseconds.'),
  lastUpdated: z.number().describe('Unix milliseconds.'),
}));
export type TOrganization = z.infer<typeof ZOrganization>;

const ZFolderFields = z.object({
  folderId: z.string(),
  folderName: z.string(),
  organizationId: z.string(),
  parentFolderId: z.string().describe('`root` for top-level folders.'),
  apiKey: z.string().describe('API key of the owning application.'),
  createdAt: z.number().describe('Unix milliseconds.'),
  lastUpdated: z.number().describe('Unix milliseconds.'),
  ancestors: z.array(z.string()).describe('Parent chain from `root` down to the direct parent.'),
  accessType: ZAccessType.describe('Effective access type (inherited from the parent when inheritAccessFromParent).'),
  inheritAccessFromParent: z.boolean(),
});
export type TFolder = z.infer<typeof ZFolderFields> & { subFolders?: TFolder[] };
export const ZFolder: z.ZodType<TFolder> = named('Folder', ZFolderFields.extend({
  subFolders: z
    .array(namedLater('Folder', () => ZFolder))
    .optional()
    .describe('Folder records of the subfolders, nested to the requested depth.'),
}));

export const ZDocument = named('Document', z.object({
  id: z.string(),
  documentName: z.string(),
  disabled: z.boolean(),
  accessType: ZAccessType.describe('Effective access type: a document inside a folder has its folder\'s.'),
  organizationId: z.string(),
  folderId: z.string().nullable().describe('null at the top of the organization.'),
  createdAt: z.number().describe('Unix milliseconds.'),
  lastUpdated: z.number().describe('Unix milliseconds.'),
}));
export type TDocument = z.infer<typeof ZDocument>;

export const ZUserGroup = named('UserGroup', z.object({
  organizationUserGroupId: z.string(),
  organizationId: z.string(),
  name: z.string(),
  createdAt: z.number().describe('Unix milliseconds.'),
}));

/** One entry of a Permission result. */
export const ZPermissionEntry = named('PermissionEntry', z.object({
  accessRole: ZAccessRole.optional(),
  accessType: ZAccessType.optional(),
  expiresAt: z.number().optional().describe('Unix seconds; present for temporary access.'),
  error: z.string().optional(),
  errorCode: z.enum(['permission_denied', 'does_not_exist']).optional(),
}));
export type TPermissionEntry = z.infer<typeof ZPermissionEntry>;

export const ZPermissionResult = named('PermissionResult', z.object({
  organization: z.record(ZPermissionEntry).optional(),
  folders: z.record(ZPermissionEntry).optional(),
  documents: z.record(ZPermissionEntry).optional(),
  context: z
    .object({ accessFields: z.array(z.string()) })
    .optional()
    .describe(
      "Feature-level access context: the union (sorted, without repeats) of the access fields of the user's live document grants, direct or through a user group, on the documents asked about. Absent when there are none.",
    ),
}));
export type TPermissionResult = z.infer<typeof ZPermissionResult>;
