import { z } from 'zod';
import { aliasOf, operation, resultOf } from '../common/envelope.js';
import { named } from '../common/named.js';
import { ZId } from '../access/schemas.js';
import { ZNotificationConfig, ZNotificationLevel } from './schemas.js';

/** The specification's limit on documentIds per Get Notification Config call; Set takes as many. */
export const MAX_CONFIG_DOCUMENT_IDS = 30;
/** Users per Set Notification Config (the specification names no limit). */
export const MAX_CONFIG_USER_IDS = 1000;

export const ZNotificationConfigEntry = named(
  'NotificationConfigEntry',
  z.object({
    config: ZNotificationConfig,
    metadata: z.object({
      organizationId: z.string(),
      apiKey: z.string(),
      documentId: z.string(),
      userId: z.string(),
    }),
  }),
);

export const getNotificationConfig = operation({
  path: '/v1/notifications/config/get',
  summary: 'Get Notification Config',
  description:
    "A user's effective notification config on each listed document (at most 30), one entry per document in the order given: per channel the document-level value, else the user's organization-level default, else the service default (inbox `MINE`, email `MINE`, slack `NONE`). Requires the notifications console toggle (FAILED_PRECONDITION when off). NOT_FOUND for an unknown organization or document.",
  data: z
    .object({
      organizationId: ZId,
      documentIds: z.array(ZId).min(1).max(MAX_CONFIG_DOCUMENT_IDS),
      userId: ZId,
    })
    .strict(),
  result: resultOf(z.array(ZNotificationConfigEntry)),
  example: {
    data: { organizationId: 'org-acme', documentIds: ['doc-q3-plan', 'doc-roadmap'], userId: 'user-grace' },
    result: {
      status: 'success',
      message: 'Notification config retrieved successfully.',
      data: [
        {
          config: { inbox: 'MINE', email: 'ALL', slack: 'NONE' },
          metadata: { organizationId: 'org-acme', apiKey: 'ak_EXAMPLE_api_key_0000000000000000', documentId: 'doc-q3-plan', userId: 'user-grace' },
        },
        {
          config: { inbox: 'MINE', email: 'MINE', slack: 'NONE' },
          metadata: { organizationId: 'org-acme', apiKey: 'ak_EXAMPLE_api_key_0000000000000000', documentId: 'doc-roadmap', userId: 'user-grace' },
        },
      ],
    },
  },
});

export const getNotificationConfigV2 = aliasOf(getNotificationConfig, '/v2/notifications/config/get');

export const ZSetNotificationConfigOutcome = named(
  'NotificationConfigOutcome',
  z.object({
    success: z.boolean(),
    userId: z.string(),
    documentId: z.string().optional().describe('The document set, when exactly one was given; absent at organization level and for several documents.'),
    message: z.string(),
  }),
);

export const setNotificationConfig = operation({
  path: '/v2/notifications/config/set',
  summary: 'Set Notification Config',
  description:
    "Sets the users' notification config on each listed document, or with `documentIds` omitted at organization level as the users' default for every document without its own value. Only the channels given change; the others keep what was stored. Result keyed by user ID (an entry names `documentId` when exactly one document was set); when the organization or a listed document does not exist nothing is stored and every user gets `success: false` naming it. Requires the notifications console toggle (FAILED_PRECONDITION when off).",
  data: z
    .object({
      organizationId: ZId,
      documentIds: z.array(ZId).min(1).max(MAX_CONFIG_DOCUMENT_IDS).optional(),
      userIds: z.array(ZId).min(1).max(MAX_CONFIG_USER_IDS),
      config: z
        .object({
          inbox: ZNotificationLevel.optional(),
          email: ZNotificationLevel.optional(),
          slack: ZNotificationLevel.optional().describe('Effective only with the chat integration.'),
        })
        .strict()
        .refine((c) => c.inbox !== undefined || c.email !== undefined || c.slack !== undefined, { message: 'give at least one of inbox, email, slack' }),
    })
    .strict(),
  result: resultOf(z.record(ZSetNotificationConfigOutcome)),
  example: {
    data: { organizationId: 'org-acme', documentIds: ['doc-q3-plan'], userIds: ['user-grace'], config: { email: 'ALL' } },
    result: {
      status: 'success',
      message: 'Notification config set.',
      data: { 'user-grace': { success: true, userId: 'user-grace', documentId: 'doc-q3-plan', message: 'Notification config set for the document.' } },
    },
  },
});
