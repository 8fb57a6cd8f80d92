import type { Db } from '../db/client.js';
import type { OwnedData } from './owned-data.js';

const ERASE_BATCH = 500;

/** Whether a JSON value holds a user object of `userId` anywhere. */
export function namesUser(value: unknown, userId: string): boolean {
  if (Array.isArray(value)) return value.some((item) => namesUser(item, userId));
  if (value === null || typeof value !== 'object') return false;
  const object = value as Record<string, unknown>;
  return object.userId === userId || Object.values(object).some((item) => namesUser(item, userId));
}

/**
 * The outbox in the owned-data registry. Its rows are messages on their way
 * to webhook endpoints; they follow their document and go with their
 * document or organization like the data they describe, and with a user
 * they name (as actor, author, mention, assignee) when that user is erased.
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
      // Others' events name the user too (a thread snapshot holds every commenter, mention and
      // assignee): those messages go as well. The text search only narrows the candidates; the
      // parsed body decides. An ID whose JSON form has a backslash is not searched for (LIKE reads
      // backslashes as escapes on PostgreSQL): then every event of the application is a candidate.
      const marker = `"userId":${JSON.stringify(userId)}`;
      const candidates = marker.includes('\\') ? {} : { body: { contains: marker } };
      for (let after = ''; ; ) {
        const rows = await db.domainEvent.findMany({
          where: { apiKeyId, id: { gt: after }, ...candidates },
          orderBy: { id: 'asc' },
          take: ERASE_BATCH,
          select: { id: true, body: true },
        });
        const naming = rows.filter((row) => namesUser(JSON.parse(row.body) as unknown, userId)).map((row) => row.id);
        if (naming.length > 0) await db.domainEvent.deleteMany({ where: { apiKeyId, id: { in: naming } } });
        if (rows.length < ERASE_BATCH) break;
        after = rows[rows.length - 1]!.id;
      }
    },
  };
}
