import type { TNotification } from '../../../contract/notifications/schemas.js';
import { cursorAt, type Cursor } from '../../db/keyset.js';
import { ANONYMOUS_USER, type OwnedData, type UserDataSource } from '../../platform/owned-data.js';
import type { NotificationsRepo } from './repo.js';
import { recipientsByNotification, toNotification, userRefOf } from './shapes.js';

/** Notifications rewritten per batch when a user's name is taken out of others' notifications. */
const SCRUB_BATCH = 200;

/**
 * Replaces every user object of `userId` inside stored JSON (a thread's
 * author, commenters, mentions, assignee, reactions; custom data) with the
 * anonymous user. Returns whether anything changed.
 */
function anonymize(value: unknown, userId: string): boolean {
  if (Array.isArray(value)) return value.map((item) => anonymize(item, userId)).some(Boolean);
  if (value === null || typeof value !== 'object') return false;
  const object = value as Record<string, unknown>;
  if (object.userId === userId) {
    for (const key of Object.keys(object)) delete object[key];
    Object.assign(object, ANONYMOUS_USER);
    return true;
  }
  return Object.values(object)
    .map((item) => anonymize(item, userId))
    .some(Boolean);
}

/**
 * What else of an erased user a notification holds: the text of comments
 * they wrote (in the thread snapshot, and as the body when it quotes one)
 * and their name as a plain template value (`{assignee}`). Blanks those
 * texts in place and returns them with the names and emails it found.
 */
function takeAuthoredText(value: unknown, userId: string, found: { texts: Set<string>; names: Set<string> }): void {
  if (Array.isArray(value)) {
    for (const item of value) takeAuthoredText(item, userId, found);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const object = value as Record<string, unknown>;
  if (object.userId === userId) {
    for (const key of ['name', 'email'] as const) if (typeof object[key] === 'string' && object[key] !== '') found.names.add(object[key]);
  }
  const from = object.from as { userId?: unknown } | undefined;
  if (from?.userId === userId && typeof object.commentText === 'string') {
    found.texts.add(object.commentText);
    object.commentText = '';
    delete object.commentHtml;
  }
  for (const item of Object.values(object)) takeAuthoredText(item, userId, found);
}

/**
 * Notifications in the owned-data registry. They follow their document to a
 * new ID and go with their document or organization (recipient rows with
 * their notification, by the foreign key's cascade). Erasing a user removes
 * their recipient rows (their inbox and read state), their configs, and the
 * notifications they caused, which are about their action; in the
 * notifications left, their user objects become the anonymous user, their
 * name as a template value becomes `Anonymous`, and the text of comments they
 * wrote is blanked (the thread snapshot, and the body when it quotes one).
 */
export function notificationsOwnedData(repo: NotificationsRepo): OwnedData {
  return {
    name: 'notifications',
    models: ['Notification', 'NotificationRecipient', 'NotificationConfig', 'NotificationDefaultConfig'],
    moveDocument: (from, to) => repo.moveDocument(from, to),
    deleteDocuments: ({ apiKeyId, organizationId, documentIds }) => repo.deleteDocuments(apiKeyId, organizationId, documentIds),
    deleteOrganization: ({ apiKeyId, organizationId }) => repo.deleteOrganization(apiKeyId, organizationId),
    async eraseUser({ apiKeyId, userId }) {
      await repo.deleteUserRows(apiKeyId, userId);
      for (let after = ''; ; ) {
        // The repo narrows the candidates by their stored text; anonymize() decides on the decoded values.
        const rows = await repo.mayMention(apiKeyId, userId, after, SCRUB_BATCH);
        for (const row of rows) {
          const { sourceData, headlineData } = row;
          const found = { texts: new Set<string>(), names: new Set<string>() };
          takeAuthoredText(sourceData, userId, found);
          takeAuthoredText(headlineData, userId, found);
          const changed = [anonymize(sourceData, userId), anonymize(headlineData, userId)].some(Boolean);
          if (changed) {
            // Their name as a plain value (e.g. {assignee}) and a body quoting their comment go too.
            for (const [key, value] of Object.entries(headlineData)) {
              if (typeof value === 'string' && found.names.has(value)) headlineData[key] = ANONYMOUS_USER.name;
            }
            const bodyMessage = row.bodyMessage !== null && found.texts.has(row.bodyMessage) ? null : row.bodyMessage;
            await repo.rewriteContent(apiKeyId, { id: row.id, sourceData, headlineData, bodyMessage });
          }
        }
        if (rows.length < SCRUB_BATCH) break;
        after = rows[rows.length - 1]!.id;
      }
    },
  };
}

/**
 * Get All User Data's `notifications`: those the user received and those
 * they caused, oldest first by (timestamp, id), each once. Both lists are
 * read past the cursor and merged, so a page costs two index range scans.
 */
export function notificationsUserData(deps: { repo: NotificationsRepo; usersOf(apiKeyId: string, ids: string[]): Promise<Map<string, { name: string; email: string }>> }): UserDataSource {
  const { repo } = deps;
  return {
    feature: 'notifications',
    async list(key, after, take) {
      const [received, caused] = await Promise.all([
        repo.listReceivedBy(key.apiKeyId, key.organizationId, key.userId, after, take),
        repo.listCausedBy(key.apiKeyId, key.organizationId, key.userId, after, take),
      ]);
      const positions = new Map<string, Cursor>();
      for (const r of received) positions.set(r.notificationId, cursorAt(r.timestamp, r.notificationId));
      for (const n of caused) positions.set(n.id, cursorAt(n.timestamp, n.id));
      const page = [...positions.values()].sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, take);
      if (page.length === 0) return [];
      const ids = page.map((p) => p.id);
      const causedById = new Map(caused.map((n) => [n.id, n]));
      const receivedIds = new Set(received.map((r) => r.notificationId));
      const missing = ids.filter((id) => !causedById.has(id));
      const rows = new Map([...causedById, ...(await repo.findMany(key.apiKeyId, key.organizationId, missing)).map((n) => [n.id, n] as const)]);
      const recipients = recipientsByNotification(await repo.recipientsOf(key.apiKeyId, ids));
      const recipientUser = userRefOf(key.userId, (await deps.usersOf(key.apiKeyId, [key.userId])).get(key.userId));
      const items: { item: TNotification; cursor: { at: number; id: string } }[] = [];
      for (const position of page) {
        const row = rows.get(position.id);
        if (!row) continue;
        const receivedIt = receivedIds.has(position.id);
        items.push({ item: toNotification(row, recipients.get(row.id) ?? [], key.apiKey, receivedIt ? recipientUser : undefined), cursor: position });
      }
      return items;
    },
  };
}
