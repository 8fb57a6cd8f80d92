import { namesUser } from '../../platform/events-owned-data.js';
import type { OwnedData } from '../../platform/owned-data.js';
import type { WebhookMessagesRepo } from './repos/messages.js';

const BATCH = 500;

/**
 * Webhook messages in the owned-data registry: they describe a document's
 * content, so they follow a migrated document (column and payload, so later
 * tries and resends name the new ID), go with a deleted document or
 * organization (their deliveries and attempts with them), and go when they
 * name an erased user.
 */
export function webhooksOwnedData(repo: WebhookMessagesRepo): OwnedData {
  return {
    name: 'webhooks',
    models: ['WebhookMessage'],
    async moveDocument(from, to) {
      const document = { apiKeyId: from.apiKeyId, organizationId: from.organizationId, documentId: from.documentId };
      for (let after = ''; ; ) {
        const rows = await repo.messagesOfDocument(document, after, BATCH);
        for (const { id, payload } of rows) {
          if (payload.metadata) payload.metadata.documentId = to;
          await repo.moveMessage(id, to, payload);
        }
        if (rows.length < BATCH) break;
        after = rows[rows.length - 1]!.id;
      }
    },
    async deleteDocuments({ apiKeyId, organizationId, documentIds }) {
      await repo.deleteMessages({ apiKeyId, organizationId, documentIds });
    },
    async deleteOrganization({ apiKeyId, organizationId }) {
      await repo.deleteMessages({ apiKeyId, organizationId });
    },
    async eraseUser({ apiKeyId, userId }) {
      // As for the outbox: a text search narrows the candidates, the payload decides.
      for (let after = ''; ; ) {
        const rows = await repo.messagesMaybeNaming(apiKeyId, userId, after, BATCH);
        const naming = rows.filter((row) => namesUser(row.payload.data, userId)).map((row) => row.id);
        if (naming.length > 0) await repo.deleteMessages({ apiKeyId, ids: naming });
        if (rows.length < BATCH) break;
        after = rows[rows.length - 1]!.id;
      }
    },
  };
}
