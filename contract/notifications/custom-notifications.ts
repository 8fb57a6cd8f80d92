import { z } from 'zod';
import { operation, resultOf } from '../common/envelope.js';
import { named } from '../common/named.js';
import { ZFreeObject, ZUserRef } from '../common/content.js';
import { ZId } from '../access/schemas.js';

/** Recipients per Add Notification and notifications per Update/Delete (the specification names no limit). */
export const MAX_NOTIFY_USERS = 1000;
export const MAX_NOTIFICATION_IDS_PER_WRITE = 100;

/** `{variable}` names the server fills: the acting user and, per reader, the recipient. */
export const RESERVED_TEMPLATE_VARIABLES = ['actionUser', 'recipientUser'] as const;

export const addNotification = operation({
  path: '/v2/notifications/add',
  summary: 'Add Notification',
  description:
    "A custom notification (`notificationSource: custom`) for the users in `notifyUsers` (users or user IDs) and/or, with `notifyAll`, every user who can read the document. Recipients whose effective inbox config is `NONE`, the acting user, and (for a document) users who cannot read it are left out. `{variable}` placeholders of the headline template take their values from `displayHeadlineMessageTemplateData` (strings; a placeholder without a value is INVALID_ARGUMENT); `{actionUser}` and `{recipientUser}` are filled by the service. Requires the notifications console toggle (FAILED_PRECONDITION when off). NOT_FOUND for an unknown organization or document; ALREADY_EXISTS for a notificationId that is taken.",
  data: z
    .object({
      organizationId: ZId,
      documentId: ZId.optional(),
      locationId: ZId.optional(),
      notificationId: ZId.optional().describe('Chosen by the caller; generated when omitted.'),
      actionUser: ZUserRef.optional(),
      displayHeadlineMessageTemplate: z.string().min(1).max(4096),
      displayHeadlineMessageTemplateData: z
        .record(z.string().max(4096))
        .optional()
        .describe('Values of the custom `{variable}` placeholders; `actionUser` and `recipientUser` are filled by the service.'),
      displayBodyMessage: z.string().max(16384).optional(),
      notificationSourceData: ZFreeObject.optional(),
      notifyUsers: z.array(z.union([ZUserRef, ZId])).min(1).max(MAX_NOTIFY_USERS).optional(),
      notifyAll: z.boolean().optional().describe('Every user who can read `documentId` (which it requires).'),
    })
    .strict()
    .refine((d) => (d.notifyUsers?.length ?? 0) > 0 || d.notifyAll === true, { message: 'give notifyUsers or notifyAll: true', path: ['notifyUsers'] })
    .refine((d) => d.notifyAll !== true || d.documentId !== undefined, { message: 'notifyAll needs documentId', path: ['notifyAll'] }),
  result: resultOf(
    named(
      'AddedNotification',
      z.object({
        notificationId: z.string(),
        notifyUsersByUserId: z.record(z.literal(true)).describe('The users it reached (the recipients left after the rules above).'),
      }),
    ),
  ),
  example: {
    data: {
      organizationId: 'org-acme',
      documentId: 'doc-q3-plan',
      actionUser: { userId: 'user-ada', name: 'Ada Lovelace', email: 'ada@example.com' },
      displayHeadlineMessageTemplate: '{actionUser} asked {recipientUser} to review {section}',
      displayHeadlineMessageTemplateData: { section: 'the Q3 budget' },
      displayBodyMessage: 'Can you check the hiring numbers before Friday?',
      notificationSourceData: { section: 'budget' },
      notifyUsers: ['user-grace'],
    },
    result: {
      status: 'success',
      message: 'Notification added.',
      data: { notificationId: 'ntf_01KKC2K2ZTNWPYPXXF1ESJN20Z', notifyUsersByUserId: { 'user-grace': true } },
    },
  },
});

export const ZNotificationOutcome = named(
  'NotificationOutcome',
  z.object({ success: z.boolean(), notificationId: z.string(), message: z.string() }),
);

export const updateNotifications = operation({
  path: '/v2/notifications/update',
  summary: 'Update Notifications',
  description:
    "Marks notifications read (`read: true`) or unread for one user. Result keyed by notification ID; one the user did not receive (or that does not exist) gets `success: false`. Requires the notifications console toggle (FAILED_PRECONDITION when off).",
  data: z
    .object({
      organizationId: ZId,
      userId: ZId,
      notificationIds: z.array(ZId).min(1).max(MAX_NOTIFICATION_IDS_PER_WRITE),
      read: z.boolean(),
    })
    .strict(),
  result: resultOf(z.record(ZNotificationOutcome)),
  example: {
    data: { organizationId: 'org-acme', userId: 'user-grace', notificationIds: ['ntf_01KKC2K2ZTNWPYPXXF1ESJN20Z'], read: true },
    result: {
      status: 'success',
      message: 'Notifications updated.',
      data: { ntf_01KKC2K2ZTNWPYPXXF1ESJN20Z: { success: true, notificationId: 'ntf_01KKC2K2ZTNWPYPXXF1ESJN20Z', message: 'Marked as read.' } },
    },
  },
});

export const deleteNotifications = operation({
  path: '/v2/notifications/delete',
  summary: 'Delete Notifications',
  description:
    "Deletes notifications of an organization for everyone, or with `userId` only from that user's notifications (the others who received them keep them). Result keyed by notification ID; an unknown one (or, with `userId`, one the user did not receive) gets `success: false`. Requires the notifications console toggle (FAILED_PRECONDITION when off).",
  data: z
    .object({
      organizationId: ZId,
      notificationIds: z.array(ZId).min(1).max(MAX_NOTIFICATION_IDS_PER_WRITE),
      userId: ZId.optional(),
    })
    .strict(),
  result: resultOf(z.record(ZNotificationOutcome)),
  example: {
    data: { organizationId: 'org-acme', notificationIds: ['ntf_01KKC2K2ZTNWPYPXXF1ESJN20Z'], userId: 'user-grace' },
    result: {
      status: 'success',
      message: 'Notifications deleted.',
      data: {
        ntf_01KKC2K2ZTNWPYPXXF1ESJN20Z: {
          success: true,
          notificationId: 'ntf_01KKC2K2ZTNWPYPXXF1ESJN20Z',
          message: 'Notification deleted for user user-grace.',
        },
      },
    },
  },
});
