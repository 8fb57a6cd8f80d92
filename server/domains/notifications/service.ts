import type { TUserRef } from '../../../contract/common/content.js';
import type { DataOf } from '../../../contract/common/envelope.js';
import { RESERVED_TEMPLATE_VARIABLES, type addNotification, type deleteNotifications, type updateNotifications } from '../../../contract/notifications/custom-notifications.js';
import type { getNotifications } from '../../../contract/notifications/get-notifications.js';
import type { getNotificationConfig, setNotificationConfig } from '../../../contract/notifications/notification-config.js';
import type { TNotification } from '../../../contract/notifications/schemas.js';
import { isUniqueViolation } from '../../db/errors.js';
import { cursorAt } from '../../db/keyset.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import { alreadyExists, invalidArgument } from '../../lib/app-error.js';
import type { Clock } from '../../lib/clock.js';
import { idMap } from '../../lib/id-map.js';
import type { Ids } from '../../lib/ids.js';
import type { PageTokens } from '../../lib/page-token.js';
import type { FeatureGate } from '../accounts/features.js';
import type { AccessLookups } from '../access/lookups.js';
import type { DocumentsRepo } from '../access/repos/documents.js';
import type { OrganizationsRepo } from '../access/repos/organizations.js';
import type { Audience } from './audience.js';
import type { NotificationRecord, NotificationsRepo, RecipientRow } from './repo.js';
import { effectiveConfig, recipientsByNotification, templateVariables, toNotification, userRefOf } from './shapes.js';
import type { Caller } from '../../platform/caller.js';

const byTimestamp = (row: { timestamp: bigint; id: string }) => cursorAt(row.timestamp, row.id);
const byRecipientTimestamp = (row: RecipientRow) => cursorAt(row.timestamp, row.notificationId);

export function createNotificationsService(deps: {
  repo: NotificationsRepo;
  organizations: Pick<OrganizationsRepo, 'findOrganization'>;
  documents: Pick<DocumentsRepo, 'findDocuments' | 'holdDocuments'>;
  find: Pick<AccessLookups, 'document' | 'heldDocuments' | 'organization'>;
  audience: Audience;
  uow: UnitOfWork;
  features: FeatureGate;
  pageTokens: PageTokens;
  clock: Clock;
  ids: Ids;
}) {
  const { repo, organizations, documents, find, audience, uow, features, pageTokens, clock, ids } = deps;

  /** Notification rows in the response shape, with every recipient's row for the maps and read state. */
  async function records(app: Caller, rows: NotificationRecord[], recipientUser?: TUserRef): Promise<TNotification[]> {
    const recipients = recipientsByNotification(await repo.recipientsOf(app.apiKeyId, rows.map((r) => r.id)));
    return rows.map((row) => toNotification(row, recipients.get(row.id) ?? [], app.apiKey, recipientUser));
  }

  async function recipientUserOf(app: Caller, userId: string): Promise<TUserRef> {
    return userRefOf(userId, (await audience.usersOf(app.apiKeyId, [userId])).get(userId));
  }

  /** Missing documents of the organization among these IDs. */
  async function missingDocuments(app: Caller, organizationId: string, documentIds: readonly string[]): Promise<string[]> {
    const found = new Set((await documents.findDocuments(app.apiKeyId, organizationId, [...documentIds])).map((d) => d.id));
    return documentIds.filter((id) => !found.has(id));
  }

  return {
    async getNotifications(app: Caller, input: DataOf<typeof getNotifications>): Promise<{ items: TNotification[]; pageToken: string | null }> {
      await features.require(app.apiKeyId, 'advancedQueries');
      await features.require(app.apiKeyId, 'notifications');
      const { organizationId, documentId, locationId, userId, notificationIds } = input;
      if (documentId === undefined && userId === undefined) throw invalidArgument('data.documentId: pass documentId or userId');
      await find.organization(app.apiKeyId, organizationId);
      if (documentId !== undefined) await find.document(app.apiKeyId, organizationId, documentId);
      const order = input.order ?? 'desc';
      const ids = notificationIds ? [...new Set(notificationIds)] : undefined;
      const scope = ['notifications', app.apiKeyId, organizationId, documentId ?? '', locationId ?? '', userId ?? '', (ids ?? []).join('\u0000'), order].join('\n');

      if (userId === undefined) {
        const page = await pageTokens.page(
          scope,
          input,
          (after, take) => repo.listByDocument(app.apiKeyId, organizationId, { documentId: documentId!, locationId, ids, after, take, order }),
          byTimestamp,
        );
        return { items: await records(app, page.items), pageToken: page.pageToken };
      }

      const page = await pageTokens.page(
        scope,
        input,
        (after, take) => repo.listForUser(app.apiKeyId, organizationId, { userId, documentId, locationId, ids, after, take, order }),
        byRecipientTimestamp,
      );
      const rows = new Map((await repo.findMany(app.apiKeyId, organizationId, page.items.map((r) => r.notificationId))).map((row) => [row.id, row]));
      const inOrder = page.items.map((r) => rows.get(r.notificationId)).filter((row): row is NotificationRecord => row !== undefined);
      return { items: await records(app, inOrder, await recipientUserOf(app, userId)), pageToken: page.pageToken };
    },

    async getNotificationConfig(app: Caller, input: DataOf<typeof getNotificationConfig>) {
      await features.require(app.apiKeyId, 'notifications');
      const { organizationId, documentIds, userId } = input;
      await find.organization(app.apiKeyId, organizationId);
      const missing = await missingDocuments(app, organizationId, documentIds);
      // NOT_FOUND naming the first unknown document.
      if (missing.length > 0) await find.document(app.apiKeyId, organizationId, missing[0]!);
      const [documentLevel, organizationLevel] = await Promise.all([
        repo.documentConfigs(app.apiKeyId, organizationId, documentIds, [userId]),
        repo.defaultConfigs(app.apiKeyId, organizationId, [userId]),
      ]);
      const byDocument = new Map(documentLevel.map((row) => [row.documentId!, row]));
      return documentIds.map((documentId) => ({
        config: effectiveConfig(byDocument.get(documentId), organizationLevel[0]),
        metadata: { organizationId, apiKey: app.apiKey, documentId, userId },
      }));
    },

    async setNotificationConfig(app: Caller, input: DataOf<typeof setNotificationConfig>) {
      await features.require(app.apiKeyId, 'notifications');
      const { organizationId } = input;
      const userIds = [...new Set(input.userIds)];
      const documentIds = input.documentIds ? [...new Set(input.documentIds)] : undefined;
      const outcomes = idMap<{ success: boolean; userId: string; documentId?: string; message: string }>();
      const documentId = documentIds?.length === 1 ? documentIds[0] : undefined;
      await uow.run(async () => {
        // The specification reports per-user outcomes inside a successful response,
        // so a missing organization or document fails every user, not the request.
        let failure: { message: string; documentId?: string } | undefined;
        if (!(await organizations.findOrganization(app.apiKeyId, organizationId))) {
          failure = { message: `organization ${organizationId} does not exist` };
        } else if (documentIds) {
          // Held until the configs are written (see holdDocuments), so a migration takes them along.
          const held = await documents.holdDocuments(app.apiKeyId, organizationId, documentIds);
          const missing = documentIds.filter((id) => !held.has(id));
          if (missing.length > 0) failure = { message: `document ${missing[0]} does not exist in organization ${organizationId}`, documentId: missing[0] };
        }
        if (failure) {
          for (const userId of userIds) {
            outcomes[userId] = { success: false, userId, ...(failure.documentId !== undefined ? { documentId: failure.documentId } : {}), message: failure.message };
          }
          return;
        }
        const at = clock.nowMs();
        if (documentIds) await repo.setDocumentConfigs(app.apiKeyId, organizationId, documentIds, userIds, input.config, at);
        else await repo.setDefaultConfigs(app.apiKeyId, organizationId, userIds, input.config, at);
        const message = documentIds
          ? documentIds.length === 1
            ? 'Notification config set for the document.'
            : `Notification config set for ${documentIds.length} documents.`
          : 'Notification config set as the organization default.';
        for (const userId of userIds) outcomes[userId] = { success: true, userId, ...(documentId !== undefined ? { documentId } : {}), message };
      });
      return outcomes;
    },

    async addNotification(app: Caller, input: DataOf<typeof addNotification>) {
      await features.require(app.apiKeyId, 'notifications');
      const data = input.displayHeadlineMessageTemplateData ?? {};
      for (const reserved of RESERVED_TEMPLATE_VARIABLES) {
        if (Object.prototype.hasOwnProperty.call(data, reserved)) {
          throw invalidArgument(`data.displayHeadlineMessageTemplateData.${reserved} is filled by the service; leave it out`);
        }
      }
      const unfilled = templateVariables(input.displayHeadlineMessageTemplate).filter(
        (name) => !(RESERVED_TEMPLATE_VARIABLES as readonly string[]).includes(name) && !Object.prototype.hasOwnProperty.call(data, name),
      );
      if (unfilled.length > 0) throw invalidArgument(`data.displayHeadlineMessageTemplateData has no value for {${unfilled[0]}} of the template`);

      const { organizationId, documentId } = input;
      const where = { apiKeyId: app.apiKeyId, organizationId, documentId: documentId ?? null };
      const given = new Map<string, TUserRef>();
      for (const user of input.notifyUsers ?? []) {
        const ref = typeof user === 'string' ? { userId: user } : user;
        if (!given.has(ref.userId)) given.set(ref.userId, ref);
      }
      const id = input.notificationId ?? ids.next('ntf');

      return uow.run(async () => {
        await find.organization(app.apiKeyId, organizationId);
        if (documentId !== undefined) await find.heldDocuments(app.apiKeyId, organizationId, [documentId]);
        if (await repo.exists(app.apiKeyId, id)) throw alreadyExists(`notification ${id} already exists`);

        // The application addresses custom notifications itself: everyone listed (with notifyAll,
        // every reader of the document) is reached unless their inbox is NONE, they acted, or
        // they cannot read the document.
        const candidates = new Set(given.keys());
        if (input.notifyAll && documentId !== undefined) {
          for (const reader of await audience.readersOf(app.apiKeyId, organizationId, documentId)) candidates.add(reader.userId);
        }
        if (input.actionUser) candidates.delete(input.actionUser.userId);
        const configs = await audience.configsOf(where, [...candidates]);
        const wanted = [...candidates].filter((userId) => configs.get(userId)?.inbox !== 'NONE');
        const reached = await audience.readable(where, wanted);
        const recipients = await audience.recipientsOf(app.apiKeyId, reached, given);

        try {
          await repo.insert(
            {
              apiKeyId: app.apiKeyId,
              id,
              organizationId,
              documentId: documentId ?? null,
              locationId: input.locationId ?? null,
              source: 'custom',
              sourceData: input.notificationSourceData ?? {},
              eventId: null,
              actionUserId: input.actionUser?.userId ?? null,
              actionUser: input.actionUser ?? null,
              headlineTemplate: input.displayHeadlineMessageTemplate,
              headlineData: { ...data, ...(input.actionUser ? { actionUser: input.actionUser } : {}) },
              bodyMessage: input.displayBodyMessage ?? null,
              timestamp: clock.nowMs(),
            },
            recipients,
          );
        } catch (error) {
          if (isUniqueViolation(error)) throw alreadyExists(`notification ${id} already exists`);
          throw error;
        }
        const notifyUsersByUserId = idMap<true>();
        for (const r of recipients) notifyUsersByUserId[r.userId] = true;
        return { notificationId: id, notifyUsersByUserId };
      });
    },

    async updateNotifications(app: Caller, input: DataOf<typeof updateNotifications>) {
      await features.require(app.apiKeyId, 'notifications');
      const { organizationId, userId, read } = input;
      const changed = await uow.run(() => repo.setRead(app.apiKeyId, organizationId, userId, [...new Set(input.notificationIds)], read ? clock.nowMs() : null));
      const outcomes = idMap<{ success: boolean; notificationId: string; message: string }>();
      for (const notificationId of input.notificationIds) {
        outcomes[notificationId] = changed.has(notificationId)
          ? { success: true, notificationId, message: read ? 'Marked as read.' : 'Marked as unread.' }
          : { success: false, notificationId, message: `user ${userId} has no notification ${notificationId} in organization ${organizationId}` };
      }
      return outcomes;
    },

    async deleteNotifications(app: Caller, input: DataOf<typeof deleteNotifications>) {
      await features.require(app.apiKeyId, 'notifications');
      const { organizationId, userId } = input;
      const ids = [...new Set(input.notificationIds)];
      const deleted = await uow.run(() =>
        userId === undefined ? repo.deleteNotifications(app.apiKeyId, organizationId, ids) : repo.deleteReceived(app.apiKeyId, organizationId, userId, ids),
      );
      const outcomes = idMap<{ success: boolean; notificationId: string; message: string }>();
      for (const notificationId of input.notificationIds) {
        outcomes[notificationId] = deleted.has(notificationId)
          ? { success: true, notificationId, message: userId === undefined ? 'Notification deleted.' : `Notification deleted for user ${userId}.` }
          : {
              success: false,
              notificationId,
              message:
                userId === undefined
                  ? `notification ${notificationId} does not exist in organization ${organizationId}`
                  : `user ${userId} has no notification ${notificationId} in organization ${organizationId}`,
            };
      }
      return outcomes;
    },
  };
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;
