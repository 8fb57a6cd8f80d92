import { namesUser } from '../../platform/events-owned-data.js';
import type { OwnedData } from '../../platform/owned-data.js';
import type { WebhookMessagesRepo } from './messages-repo.js';

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
        for (const row of rows) {
          const body = JSON.parse(row.body) as { metadata?: { documentId?: string } };
          if (body.metadata) body.metadata.documentId = to;
          await repo.moveMessage(row.id, to, JSON.stringify(body));
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
      // As for the outbox: a text search narrows the candidates, the parsed body decides.
      const marker = `"userId":${JSON.stringify(userId)}`;
      const candidates = marker.includes('\\') ? undefined : marker;
      for (let after = ''; ; ) {
        const rows = await repo.messagesContaining(apiKeyId, candidates, after, BATCH);
        const naming = rows.filter((row) => namesUser((JSON.parse(row.body) as { data?: unknown }).data, userId)).map((row) => row.id);
        if (naming.length > 0) await repo.deleteMessages({ apiKeyId, ids: naming });
        if (rows.length < BATCH) break;
        after = rows[rows.length - 1]!.id;
      }
    },
  };
}
