import { z } from 'zod';
import { named } from '../common/named.js';
import { ZContentMetadata, ZFreeObject, ZTimestampMs, ZUserRef } from '../common/content.js';

export const ZNotificationSource = z.string().describe('What produced it: `custom`, `comment`, `comment_annotation`, `recorder`, …');

export const ZNotification = named(
  'Notification',
  z.object({
    id: z.string(),
    notificationSource: ZNotificationSource,
    notificationSourceData: ZFreeObject.describe('Depends on notificationSource, e.g. the comment annotation.'),
    actionUser: ZUserRef.optional(),
    displayBodyMessage: z.string().optional(),
    displayHeadlineMessageTemplate: z.string(),
    displayHeadlineMessageTemplateData: z
      .record(z.unknown())
      .describe('Values of the template variables: `actionUser` and `recipientUser` (user objects) and custom string values.'),
    metadata: ZContentMetadata,
    locationId: z.string().optional().describe('The location in the document (a comment thread\'s `location.locationId`), when it has one.'),
    notifyUsers: z.record(z.literal(true)).describe('User key → true, for every recipient; a user\'s key is their email when known, else their user ID.'),
    notifyUsersByUserId: z.record(z.literal(true)).describe('User ID → true.'),
    readByUserIds: z.record(z.literal(true)).describe('User ID → true, for the users who marked it read.'),
    timestamp: ZTimestampMs,
  }),
);
export type TNotification = z.infer<typeof ZNotification>;

export const ZNotificationLevel = named('NotificationLevel', z.enum(['ALL', 'MINE', 'NONE']));
export type TNotificationLevel = z.infer<typeof ZNotificationLevel>;

export const ZNotificationConfig = named(
  'NotificationConfig',
  z.object({ inbox: ZNotificationLevel, email: ZNotificationLevel, slack: ZNotificationLevel }),
);
export type TNotificationConfig = z.infer<typeof ZNotificationConfig>;
