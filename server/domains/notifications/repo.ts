import type { TUserRef } from '../../../contract/common/content.js';
import type { TNotificationLevel } from '../../../contract/notifications/schemas.js';
import { insertMany, upsertMany } from '../../db/bulk.js';
import { directReadsOf, type Db } from '../../db/client.js';
import { rawParams } from '../../db/raw-params.js';
import type { Notification, NotificationRecipient } from '../../db/generated/sqlite/client.js';
import { afterMs, type Cursor } from '../../db/keyset.js';
import type { Kind } from '../../db/direct-reads.js';
import { columnList, selectRows } from '../../db/direct-select.js';

export type RecipientRow = NotificationRecipient;
export type SortOrder = 'asc' | 'desc';

/** A stored notification with its JSON columns decoded (each read decodes afresh: callers may not share the objects). */
export type NotificationRecord = Omit<Notification, 'sourceData' | 'actionUser' | 'headlineData'> & {
  /** The thread as it was (comment notifications) or the application's data (custom ones). */
  sourceData: Record<string, unknown>;
  /** Undefined when the column is NULL (no acting user). */
  actionUser: TUserRef | undefined;
  headlineData: Record<string, unknown>;
};

export interface NewNotification {
  apiKeyId: string;
  id: string;
  organizationId: string;
  documentId: string | null;
  locationId: string | null;
  source: string;
  sourceData: Record<string, unknown>;
  eventId: string | null;
  actionUserId: string | null;
  actionUser: TUserRef | null;
  headlineTemplate: string;
  headlineData: Record<string, unknown>;
  bodyMessage: string | null;
  timestamp: number;
}

/** What erasure rewrites of a notification. */
export interface NotificationContent {
  id: string;
  sourceData: unknown;
  headlineData: Record<string, unknown>;
  bodyMessage: string | null;
}

function notificationFrom(row: Notification): NotificationRecord {
  return {
    ...row,
    sourceData: JSON.parse(row.sourceData) as Record<string, unknown>,
    actionUser: row.actionUser === null ? undefined : (JSON.parse(row.actionUser) as TUserRef),
    headlineData: JSON.parse(row.headlineData) as Record<string, unknown>,
  };
}

export interface NewRecipient {
  userId: string;
  userKey: string;
}

/** A stored config row; a null channel is unset. */
export interface ConfigRow {
  userId: string;
  documentId?: string;
  inbox: string | null;
  email: string | null;
  slack: string | null;
}

export type Channel = 'inbox' | 'email' | 'slack';
/** A channel's column, named by code (a channel never comes into SQL from input). */
const CHANNEL_COLUMN: Record<Channel, string> = { inbox: 'inbox', email: 'email', slack: 'slack' };
export type ChannelValues = Partial<Record<Channel, TNotificationLevel>>;

/** IDs per `IN (…)` list: well under both databases' bound-parameter limits. */
const ID_BATCH = 500;

function chunks<T>(items: readonly T[], size = ID_BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const ordered = (order: SortOrder, idField: 'id' | 'notificationId') => [{ timestamp: order }, { [idField]: order }];

// The reads of Get Notifications are direct (db/direct-reads.ts); these are their columns.
const CONFIG_COLUMNS = { userId: 'text', documentId: 'text', inbox: 'text?', email: 'text?', slack: 'text?' } as const;
const DEFAULT_CONFIG_COLUMNS = { userId: 'text', inbox: 'text?', email: 'text?', slack: 'text?' } as const;

const NOTIFICATION_COLUMNS = {
  apiKeyId: 'text',
  id: 'text',
  organizationId: 'text',
  documentId: 'text?',
  locationId: 'text?',
  source: 'text',
  sourceData: 'text',
  eventId: 'text?',
  actionUserId: 'text?',
  actionUser: 'text?',
  headlineTemplate: 'text',
  headlineData: 'text',
  bodyMessage: 'text?',
  timestamp: 'bigint',
} as const satisfies Record<keyof Notification, Kind>;
const RECIPIENT_COLUMNS = {
  apiKeyId: 'text',
  notificationId: 'text',
  userId: 'text',
  userKey: 'text',
  organizationId: 'text',
  documentId: 'text?',
  locationId: 'text?',
  timestamp: 'bigint',
  readAt: 'bigint?',
} as const satisfies Record<keyof NotificationRecipient, Kind>;

export function createNotificationsRepo(db: Db) {
  return {
    // ── owned data ──
    async moveDocument(from: { apiKeyId: string; organizationId: string; documentId: string }, to: string): Promise<void> {
      const where = { apiKeyId: from.apiKeyId, organizationId: from.organizationId, documentId: from.documentId };
      await db.notification.updateMany({ where, data: { documentId: to } });
      await db.notificationRecipient.updateMany({ where, data: { documentId: to } });
      await db.notificationConfig.updateMany({ where, data: { documentId: to } });
    },
    async deleteDocuments(apiKeyId: string, organizationId: string, documentIds: readonly string[]): Promise<void> {
      const where = { apiKeyId, organizationId, documentId: { in: [...documentIds] } };
      await db.notification.deleteMany({ where });
      await db.notificationConfig.deleteMany({ where });
    },
    async deleteOrganization(apiKeyId: string, organizationId: string): Promise<void> {
      await db.notification.deleteMany({ where: { apiKeyId, organizationId } });
      await db.notificationConfig.deleteMany({ where: { apiKeyId, organizationId } });
      await db.notificationDefaultConfig.deleteMany({ where: { apiKeyId, organizationId } });
    },
    /** Erasure's deletes: the user's recipient rows, configs, and the notifications they caused. */
    async deleteUserRows(apiKeyId: string, userId: string): Promise<void> {
      await db.notificationRecipient.deleteMany({ where: { apiKeyId, userId } });
      await db.notificationConfig.deleteMany({ where: { apiKeyId, userId } });
      await db.notificationDefaultConfig.deleteMany({ where: { apiKeyId, userId } });
      await db.notification.deleteMany({ where: { apiKeyId, actionUserId: userId } });
    },
    /**
     * The next `take` notifications by ID after `after` whose stored JSON may
     * hold a user object of `userId`, decoded. The text search only narrows
     * the candidates; the caller decides on the decoded values. An ID whose
     * JSON form has a backslash is not searched for (LIKE reads backslashes
     * as escapes on PostgreSQL, so it could miss): then every notification is
     * a candidate.
     */
    async mayMention(apiKeyId: string, userId: string, after: string, take: number): Promise<NotificationContent[]> {
      const marker = `"userId":${JSON.stringify(userId)}`;
      const candidates = marker.includes('\\') ? {} : { OR: [{ sourceData: { contains: marker } }, { headlineData: { contains: marker } }] };
      const rows = await db.notification.findMany({
        where: { apiKeyId, id: { gt: after }, ...candidates },
        orderBy: { id: 'asc' },
        take,
        select: { id: true, sourceData: true, headlineData: true, bodyMessage: true },
      });
      return rows.map((row) => ({
        id: row.id,
        sourceData: JSON.parse(row.sourceData) as unknown,
        headlineData: JSON.parse(row.headlineData) as Record<string, unknown>,
        bodyMessage: row.bodyMessage,
      }));
    },
    rewriteContent: (apiKeyId: string, content: NotificationContent) =>
      db.notification.update({
        where: { apiKeyId_id: { apiKeyId, id: content.id } },
        data: { sourceData: JSON.stringify(content.sourceData), headlineData: JSON.stringify(content.headlineData), bodyMessage: content.bodyMessage },
      }),

    // ── notifications ──

    /** One notification and a row per recipient (inside the caller's unit of work). */
    async insert(row: NewNotification, recipients: readonly NewRecipient[]): Promise<void> {
      // Past the ORM (db/bulk.ts): two statements on the path of every event that notifies.
      await insertMany(db, 'Notification', [
        {
          ...row,
          sourceData: JSON.stringify(row.sourceData),
          actionUser: row.actionUser ? JSON.stringify(row.actionUser) : null,
          headlineData: JSON.stringify(row.headlineData),
          timestamp: BigInt(row.timestamp),
        },
      ]);
      await insertMany(
        db,
        'NotificationRecipient',
        recipients.map((r) => ({
          apiKeyId: row.apiKeyId,
          notificationId: row.id,
          userId: r.userId,
          userKey: r.userKey,
          organizationId: row.organizationId,
          documentId: row.documentId,
          locationId: row.locationId,
          timestamp: BigInt(row.timestamp),
        })),
      );
    },

    exists: async (apiKeyId: string, id: string) => (await db.notification.count({ where: { apiKeyId, id } })) > 0,

    /** A document's notifications (optionally at one location, among some IDs), one keyset page. */
    listByDocument: (
      apiKeyId: string,
      organizationId: string,
      q: { documentId: string; locationId?: string; ids?: string[]; after?: Cursor; take: number; order: SortOrder },
    ): Promise<NotificationRecord[]> =>
      selectRows(db, {
        from: 'Notification',
        columns: NOTIFICATION_COLUMNS,
        where: { apiKeyId, organizationId, documentId: q.documentId, locationId: q.locationId, id: q.ids ? { in: q.ids } : undefined },
        after: { cursor: q.after, order: q.order, at: 'timestamp', id: 'id' },
        orderBy: [['timestamp', q.order], ['id', q.order]],
        take: q.take,
      }).then((rows) => rows.map(notificationFrom)),

    /** The recipient rows of a user's notifications (optionally of one document / location, among some IDs), one keyset page. */
    listForUser: (
      apiKeyId: string,
      organizationId: string,
      q: { userId: string; documentId?: string; locationId?: string; ids?: string[]; after?: Cursor; take: number; order: SortOrder },
    ) =>
      selectRows(db, {
        from: 'NotificationRecipient',
        columns: RECIPIENT_COLUMNS,
        where: { apiKeyId, organizationId, userId: q.userId, documentId: q.documentId, locationId: q.locationId, notificationId: q.ids ? { in: q.ids } : undefined },
        after: { cursor: q.after, order: q.order, at: 'timestamp', id: 'notificationId' },
        orderBy: [['timestamp', q.order], ['notificationId', q.order]],
        take: q.take,
      }),

    /** Notifications a user caused, oldest first, after a cursor (Get All User Data). */
    listCausedBy: async (apiKeyId: string, organizationId: string, userId: string, after: Cursor | undefined, take: number): Promise<NotificationRecord[]> =>
      (
        await db.notification.findMany({
          where: { apiKeyId, actionUserId: userId, organizationId, ...afterMs(after, { at: 'timestamp' }) },
          orderBy: ordered('asc', 'id'),
          take,
        })
      ).map(notificationFrom),

    /** A user's recipient rows, oldest first, after a cursor (Get All User Data). */
    listReceivedBy: (apiKeyId: string, organizationId: string, userId: string, after: Cursor | undefined, take: number) =>
      db.notificationRecipient.findMany({
        where: { apiKeyId, userId, organizationId, ...afterMs(after, { at: 'timestamp', id: 'notificationId' }) },
        orderBy: ordered('asc', 'notificationId'),
        take,
      }),

    findMany: async (apiKeyId: string, organizationId: string, ids: readonly string[]): Promise<NotificationRecord[]> => {
      const rows: Notification[] = [];
      for (const batch of chunks(ids)) rows.push(...(await selectRows(db, { from: 'Notification', columns: NOTIFICATION_COLUMNS, where: { apiKeyId, organizationId, id: { in: batch } } })));
      return rows.map(notificationFrom);
    },

    /** Every recipient row of these notifications. */
    recipientsOf: async (apiKeyId: string, notificationIds: readonly string[]): Promise<RecipientRow[]> => {
      const rows: RecipientRow[] = [];
      for (const batch of chunks(notificationIds)) {
        rows.push(
          ...(await selectRows(db, {
            from: 'NotificationRecipient',
            columns: RECIPIENT_COLUMNS,
            where: { apiKeyId, notificationId: { in: batch } },
            orderBy: [['notificationId', 'asc'], ['userId', 'asc']],
          })),
        );
      }
      return rows;
    },

    /** Sets the user's read state on those of the notifications they received; returns their IDs. */
    async setRead(apiKeyId: string, organizationId: string, userId: string, ids: readonly string[], readAt: number | null): Promise<Set<string>> {
      const where = { apiKeyId, organizationId, userId, notificationId: { in: [...ids] } };
      const found = await db.notificationRecipient.findMany({ where, select: { notificationId: true } });
      await db.notificationRecipient.updateMany({ where, data: { readAt: readAt === null ? null : BigInt(readAt) } });
      return new Set(found.map((r) => r.notificationId));
    },

    /** Deletes notifications (their recipient rows go with them); returns the IDs that existed. */
    async deleteNotifications(apiKeyId: string, organizationId: string, ids: readonly string[]): Promise<Set<string>> {
      const where = { apiKeyId, organizationId, id: { in: [...ids] } };
      const found = await db.notification.findMany({ where, select: { id: true } });
      await db.notification.deleteMany({ where });
      return new Set(found.map((r) => r.id));
    },

    /** Removes notifications from one user's list only; returns the IDs the user had. */
    async deleteReceived(apiKeyId: string, organizationId: string, userId: string, ids: readonly string[]): Promise<Set<string>> {
      const where = { apiKeyId, organizationId, userId, notificationId: { in: [...ids] } };
      const found = await db.notificationRecipient.findMany({ where, select: { notificationId: true } });
      await db.notificationRecipient.deleteMany({ where });
      return new Set(found.map((r) => r.notificationId));
    },

    // ── configs ──

    /** Document-level configs of these documents, for the given users or (without) every user who has one. */
    documentConfigs: async (apiKeyId: string, organizationId: string, documentIds: readonly string[], userIds?: readonly string[]): Promise<ConfigRow[]> => {
      if (userIds === undefined) return selectRows(db, { from: 'NotificationConfig', columns: CONFIG_COLUMNS, where: { apiKeyId, organizationId, documentId: { in: [...documentIds] } } });
      const rows: ConfigRow[] = [];
      for (const batch of chunks(userIds)) {
        rows.push(...(await db.notificationConfig.findMany({ where: { apiKeyId, organizationId, documentId: { in: [...documentIds] }, userId: { in: batch } } })));
      }
      return rows;
    },

    /** Organization-level configs of the given users. */
    defaultConfigs: async (apiKeyId: string, organizationId: string, userIds: readonly string[]): Promise<ConfigRow[]> => {
      const rows: ConfigRow[] = [];
      for (const batch of chunks(userIds)) rows.push(...(await db.notificationDefaultConfig.findMany({ where: { apiKeyId, organizationId, userId: { in: batch } } })));
      return rows;
    },

    /** Organization-level configs of the given users (at most ID_BATCH; none: only by level) or whose value on this channel is this level, in one query. */
    defaultConfigsOfOrWithLevel: (apiKeyId: string, organizationId: string, userIds: readonly string[], channel: Channel, level: TNotificationLevel): Promise<ConfigRow[]> => {
      // Direct (db/direct-reads.ts), as selectRows is, with the OR it has no form for.
      const { params, bind } = rawParams(db);
      // Placeholders are bound in the text's order (SQLite's are positional).
      let sql = `SELECT ${columnList(DEFAULT_CONFIG_COLUMNS)} FROM "NotificationDefaultConfig" WHERE "apiKeyId" = ${bind(apiKeyId)} AND "organizationId" = ${bind(organizationId)}`;
      sql += ` AND ("${CHANNEL_COLUMN[channel]}" = ${bind(level)}`;
      if (userIds.length > 0) sql += ` OR "userId" IN (${userIds.map(bind).join(', ')})`;
      return directReadsOf(db).rows(DEFAULT_CONFIG_COLUMNS, `${sql})`, params);
    },

    /**
     * Merges the given channels over what each (user, document) row holds:
     * one statement whatever the number of rows; channels not given keep
     * their stored value (null on a new row).
     */
    setDocumentConfigs: (apiKeyId: string, organizationId: string, documentIds: readonly string[], userIds: readonly string[], values: ChannelValues, at: number) =>
      upsertMany(
        db,
        'NotificationConfig',
        documentIds.flatMap((documentId) =>
          userIds.map((userId) => ({ apiKeyId, organizationId, documentId, userId, inbox: values.inbox ?? null, email: values.email ?? null, slack: values.slack ?? null, updatedAt: at })),
        ),
        { key: ['apiKeyId', 'organizationId', 'documentId', 'userId'], update: [...channelsOf(values), 'updatedAt'] },
      ),

    setDefaultConfigs: (apiKeyId: string, organizationId: string, userIds: readonly string[], values: ChannelValues, at: number) =>
      upsertMany(
        db,
        'NotificationDefaultConfig',
        userIds.map((userId) => ({ apiKeyId, organizationId, userId, inbox: values.inbox ?? null, email: values.email ?? null, slack: values.slack ?? null, updatedAt: at })),
        { key: ['apiKeyId', 'organizationId', 'userId'], update: [...channelsOf(values), 'updatedAt'] },
      ),
  };
}

function channelsOf(values: ChannelValues): ('inbox' | 'email' | 'slack')[] {
  return (['inbox', 'email', 'slack'] as const).filter((channel) => values[channel] !== undefined);
}

export type NotificationsRepo = ReturnType<typeof createNotificationsRepo>;
