import type { Db } from '../db/client.js';
import type { OwnedData } from './owned-data.js';

/**
 * The outbox in the owned-data registry. Its rows are messages on their way
 * to webhook endpoints; they follow their document and go with their
 * document, organization or acting user like the data they describe.
 */
export function eventsOwnedData(db: Db): OwnedData {
  return {
    name: 'events',
    models: ['DomainEvent'],
    async moveDocument(from, to) {
      await db.domainEvent.updateMany({
        where: { apiKeyId: from.apiKeyId, organizationId: from.organizationId, documentId: from.documentId },
        data: { documentId: to },
      });
    },
    async deleteDocuments({ apiKeyId, organizationId, documentIds }) {
      await db.domainEvent.deleteMany({ where: { apiKeyId, organizationId, documentId: { in: [...documentIds] } } });
    },
    async deleteOrganization({ apiKeyId, organizationId }) {
      await db.domainEvent.deleteMany({ where: { apiKeyId, organizationId } });
    },
    async eraseUser({ apiKeyId, userId }) {
      await db.domainEvent.deleteMany({ where: { apiKeyId, actorUserId: userId } });
    },
  };
}
