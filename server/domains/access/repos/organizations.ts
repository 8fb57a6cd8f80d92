import { upsertMany } from '../../../db/bulk.js';
import { providerOfClient, type Db } from '../../../db/client.js';
import { afterMs, byCreation, type Cursor } from '../../../db/keyset.js';
import type { Clock } from '../../../lib/clock.js';
import { created } from './times.js';
import { selectRows } from '../../../db/direct-select.js';

const ORGANIZATION_COLUMNS = { apiKeyId: 'text', id: 'text', name: 'text', disabled: 'bool', createdAt: 'bigint', updatedAt: 'bigint' } as const;

/**
 * Organizations. Every function takes the application (apiKeyId) first and
 * puts it into every query: tenancy is not something a caller can forget.
 * Functions that write several statements are called inside the service's
 * unit of work, which makes them atomic.
 */
export function createOrganizationsRepo(db: Db, clock: Clock) {
  return {
    // Direct (db/direct-reads.ts): every access check reads it.
    findOrganization: async (apiKeyId: string, id: string) =>
      (await selectRows(db, { from: 'Organization', columns: ORGANIZATION_COLUMNS, where: { apiKeyId, id } }))[0] ?? null,

    createOrganization: (apiKeyId: string, id: string, name: string) => db.organization.create({ data: { apiKeyId, id, name, ...created(clock) } }),

    /**
     * Creates the organization when missing. Race-safe
     * on both databases: `INSERT … ON CONFLICT DO NOTHING` (the ORM's upsert
     * is a read then an insert, whose unique violation on PostgreSQL aborts the
     * whole unit of work of all but one of several first requests at once).
     */
    ensureOrganization: async (apiKeyId: string, id: string): Promise<void> => {
      await upsertMany(db, 'Organization', [{ apiKeyId, id, name: id, disabled: false, ...created(clock) }], { key: ['apiKeyId', 'id'], update: [] });
    },

    listOrganizations: (apiKeyId: string, q: { ids?: string[]; after?: Cursor; take: number }) =>
      db.organization.findMany({
        where: { apiKeyId, ...(q.ids ? { id: { in: q.ids } } : {}), ...afterMs(q.after) },
        orderBy: byCreation(),
        take: q.take,
      }),

    updateOrganization: (apiKeyId: string, id: string, data: { name?: string; disabled?: boolean }) =>
      db.organization.update({ where: { apiKeyId_id: { apiKeyId, id } }, data: { ...data, updatedAt: BigInt(clock.nowMs()) } }),

    /** The organization's structure; what it owns (documents, grants, content) goes through the owned-data registry. */
    deleteOrganization: async (apiKeyId: string, organizationId: string) => {
      const where = { apiKeyId, organizationId };
      await db.userGroup.deleteMany({ where });
      await db.folder.deleteMany({ where });
      await db.organization.deleteMany({ where: { apiKeyId, id: organizationId } });
    },

    /**
     * Holds the organization row until the unit of work ends, so structural
     * changes of its folder tree (a move and its cycle check, deleting folders
     * or the organization) take turns, always taking this row first. On
     * PostgreSQL a row lock; on SQLite the gate already runs transactions one
     * at a time.
     */
    lockOrganization: async (apiKeyId: string, organizationId: string) => {
      if (providerOfClient(db) !== 'postgresql') return;
      await db.$queryRawUnsafe('SELECT 1 FROM "Organization" WHERE "apiKeyId" = $1 AND "id" = $2 FOR UPDATE', apiKeyId, organizationId);
    },
  };
}

export type OrganizationsRepo = ReturnType<typeof createOrganizationsRepo>;
