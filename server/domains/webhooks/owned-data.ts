import type { Db } from '../../db/client.js';
import { namesUser } from '../../platform/events-owned-data.js';
import type { OwnedData } from '../../platform/owned-data.js';

const BATCH = 500;

/**
 * Webhook messages in the owned-data registry: they describe a document's
 * content, so they follow a migrated document (column and payload, so later
 * tries and resends name the new ID), go with a deleted document or
 * organization (their deliveries and attempts with them), and go when they
 * name an erased user.
 */
export function webhooksOwnedData(db: Db): OwnedData {
  return {
    name: 'webhooks',
    models: ['WebhookMessage'],
    async moveDocument(from, to) {
      for (let after = ''; ; ) {
        const rows = await db.webhookMessage.findMany({
          where: { apiKeyId: from.apiKeyId, organizationId: from.organizationId, documentId: from.documentId, id: { gt: after } },
          orderBy: { id: 'asc' },
          take: BATCH,
          select: { id: true, body: true },
        });
        for (const row of rows) {
          const body = JSON.parse(row.body) as { metadata?: { documentId?: string } };
          if (body.metadata) body.metadata.documentId = to;
          await db.webhookMessage.update({ where: { id: row.id }, data: { documentId: to, body: JSON.stringify(body) } });
        }
        if (rows.length < BATCH) break;
        after = rows[rows.length - 1]!.id;
      }
    },
    async deleteDocuments({ apiKeyId, organizationId, documentIds }) {
      await db.webhookMessage.deleteMany({ where: { apiKeyId, organizationId, documentId: { in: [...documentIds] } } });
    },
    async deleteOrganization({ apiKeyId, organizationId }) {
      await db.webhookMessage.deleteMany({ where: { apiKeyId, organizationId } });
    },
    async eraseUser({ apiKeyId, userId }) {
      // As for the outbox: a text search narrows the candidates, the parsed body decides.
      const marker = `"userId":${JSON.stringify(userId)}`;
      const candidates = marker.includes('\\') ? {} : { body: { contains: marker } };
      for (let after = ''; ; ) {
        const rows = await db.webhookMessage.findMany({
          where: { apiKeyId, id: { gt: after }, ...candidates },
          orderBy: { id: 'asc' },
          take: BATCH,
          select: { id: true, body: true },
        });
        const naming = rows.filter((row) => namesUser((JSON.parse(row.body) as { data?: unknown }).data, userId)).map((row) => row.id);
        if (naming.length > 0) await db.webhookMessage.deleteMany({ where: { apiKeyId, id: { in: naming } } });
        if (rows.length < BATCH) break;
        after = rows[rows.length - 1]!.id;
      }
    },
  };
}
