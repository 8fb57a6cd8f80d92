import type { TUserRef } from '../../../contract/common/content.js';
import type { TNotification, TNotificationConfig, TNotificationLevel } from '../../../contract/notifications/schemas.js';
import { idMap } from '../../lib/id-map.js';
import type { ConfigRow, NotificationRecord, RecipientRow } from './repo.js';

/**
 * The service default, per channel, for a user with neither a document-level
 * nor an organization-level value. Inbox `MINE`: a user hears of what
 * involves them (a mention, a reply in their thread, an assignment) without
 * opting in, and of everything in a document only when they ask for `ALL`.
 * Email follows the inbox; Slack needs the chat integration, so it is off.
 */
export const SERVICE_DEFAULT_CONFIG: TNotificationConfig = { inbox: 'MINE', email: 'MINE', slack: 'NONE' };

const CHANNELS = ['inbox', 'email', 'slack'] as const;

/** Per channel: the document-level value, else the organization default, else the service default. */
export function effectiveConfig(documentLevel: ConfigRow | undefined, organizationLevel: ConfigRow | undefined): TNotificationConfig {
  const config = { ...SERVICE_DEFAULT_CONFIG };
  for (const channel of CHANNELS) {
    const value = documentLevel?.[channel] ?? organizationLevel?.[channel];
    if (value !== null && value !== undefined) config[channel] = value as TNotificationLevel;
  }
  return config;
}

/** A user as content shows them, from a user row (or just the ID when the application never added them). */
export function userRefOf(userId: string, row: { name: string; email: string } | undefined): TUserRef {
  if (!row) return { userId };
  return { userId, ...(row.name ? { name: row.name } : {}), ...(row.email ? { email: row.email } : {}) };
}

/** The key of notifyUsers: the user's email when known, else the user ID. */
export function userKeyOf(user: TUserRef): string {
  return user.email ? user.email : user.userId;
}

/**
 * A stored notification in the response shape. `recipientUser` is filled
 * for reads made for one user; `apiKey` is the caller's (never stored).
 */
export function toNotification(row: NotificationRecord, recipients: readonly RecipientRow[], apiKey: string, recipientUser?: TUserRef): TNotification {
  const notifyUsers = idMap<true>();
  const notifyUsersByUserId = idMap<true>();
  const readByUserIds = idMap<true>();
  for (const recipient of recipients) {
    notifyUsers[recipient.userKey] = true;
    notifyUsersByUserId[recipient.userId] = true;
    if (recipient.readAt !== null) readByUserIds[recipient.userId] = true;
  }
  // A comment notification's data is the thread as it was; the thread's document is the
  // notification's, which follows a migrated document (the snapshot is not rewritten).
  const sourceData = row.source === 'comment' && row.documentId !== null ? { ...row.sourceData, documentId: row.documentId } : row.sourceData;
  const templateData = recipientUser ? { ...row.headlineData, recipientUser } : row.headlineData;
  return {
    id: row.id,
    notificationSource: row.source,
    notificationSourceData: sourceData,
    ...(row.actionUser !== undefined ? { actionUser: row.actionUser } : {}),
    ...(row.bodyMessage !== null ? { displayBodyMessage: row.bodyMessage } : {}),
    displayHeadlineMessageTemplate: row.headlineTemplate,
    displayHeadlineMessageTemplateData: templateData,
    metadata: { apiKey, organizationId: row.organizationId, ...(row.documentId !== null ? { documentId: row.documentId } : {}) },
    ...(row.locationId !== null ? { locationId: row.locationId } : {}),
    notifyUsers,
    notifyUsersByUserId,
    readByUserIds,
    timestamp: Number(row.timestamp),
  };
}

/** Groups recipient rows by notification. */
export function recipientsByNotification(rows: readonly RecipientRow[]): Map<string, RecipientRow[]> {
  const map = new Map<string, RecipientRow[]>();
  for (const row of rows) {
    const list = map.get(row.notificationId);
    if (list) list.push(row);
    else map.set(row.notificationId, [row]);
  }
  return map;
}

/** The `{name}` placeholders of a headline template. */
export function templateVariables(template: string): string[] {
  return [...new Set([...template.matchAll(/\{([^{}\s]+)\}/g)].map((m) => m[1]!))];
}
