import type { TUserRef } from '../../../contract/common/content.js';
import { insertMany } from '../../db/bulk.js';
import type { Db } from '../../db/client.js';
import { userJson } from '../../db/json-columns.js';
import type { Kind } from '../../db/direct-reads.js';
import { selectRows } from '../../db/direct-select.js';
import type { Cursor } from '../../db/keyset.js';

export type SortOrder = 'asc' | 'desc';

/** An activity record: a row (see prisma/models.prisma) with its JSON columns decoded; the service maps it to the contract's shape. */
export interface ActivityRecord {
  apiKeyId: string;
  id: string;
  organizationId: string;
  documentId: string | null;
  featureType: string;
  actionType: string;
  userId: string;
  /** The acting user as given. */
  actionUser: TUserRef;
  targetEntityId: string;
  template: string;
  templateData: Record<string, unknown>;
  timestamp: bigint;
}

/** The row as stored: the JSON columns are TEXT. */
type ActivityRow = Omit<ActivityRecord, 'actionUser' | 'templateData'> & { actionUser: string; templateData: string };

/** The columns of a row, for the direct read of the list. */
const ACTIVITY_COLUMNS = {
  apiKeyId: 'text',
  id: 'text',
  organizationId: 'text',
  documentId: 'text?',
  featureType: 'text',
  actionType: 'text',
  userId: 'text',
  actionUser: 'text',
  targetEntityId: 'text',
  template: 'text',
  templateData: 'text',
  timestamp: 'bigint',
} as const satisfies Record<keyof ActivityRow, Kind>;

const activityRowOf = (record: ActivityRecord): ActivityRow => ({ ...record, actionUser: userJson(record.actionUser), templateData: JSON.stringify(record.templateData) });

function activityFrom(row: ActivityRow): ActivityRecord {
  return { ...row, actionUser: JSON.parse(row.actionUser) as TUserRef, templateData: JSON.parse(row.templateData) as Record<string, unknown> };
}

type ActivityChanges = Partial<Pick<ActivityRecord, 'featureType' | 'actionType' | 'userId' | 'actionUser' | 'targetEntityId' | 'template' | 'templateData'>>;

export interface ActivityFilter {
  organizationId: string;
  documentId?: string;
  targetEntityId?: string;
  featureTypes?: readonly string[];
  actionTypes?: readonly string[];
  userId?: string;
  activityIds?: readonly string[];
}

const inOrder = (order: SortOrder) => (a: ActivityRow, b: ActivityRow) => {
  const byTime = a.timestamp === b.timestamp ? 0 : a.timestamp < b.timestamp ? -1 : 1;
  const byId = a.id === b.id ? 0 : a.id < b.id ? -1 : 1;
  const asc = byTime !== 0 ? byTime : byId;
  return order === 'asc' ? asc : -asc;
};

/**
 * Activity records. Every query is scoped by the application (apiKeyId) and
 * organization; writes that go with others run in the caller's unit of work.
 */
export function createActivitiesRepo(db: Db) {
  return {
    /** Returns the records as stored (decoded from the text written). */
    async insertMany(records: ActivityRecord[]): Promise<ActivityRecord[]> {
      const rows = records.map(activityRowOf);
      await insertMany(db, 'Activity', rows);
      return rows.map(activityFrom);
    },

    find: async (apiKeyId: string, organizationId: string, id: string): Promise<ActivityRecord | null> => {
      const row = await db.activity.findFirst({ where: { apiKeyId, organizationId, id } });
      return row ? activityFrom(row) : null;
    },

    /** Changes the given fields (undefined: left as is); returns the record as stored. */
    update: async (apiKeyId: string, id: string, changes: ActivityChanges): Promise<ActivityRecord> => {
      const { actionUser, templateData, ...plain } = changes;
      const data = {
        ...plain,
        ...(actionUser !== undefined ? { actionUser: userJson(actionUser) } : {}),
        templateData: templateData !== undefined ? JSON.stringify(templateData) : undefined,
      };
      return activityFrom(await db.activity.update({ where: { apiKeyId_id: { apiKeyId, id } }, data }));
    },

    /** Deletes those of `ids` the organization has; returns the IDs deleted. */
    async deleteMany(apiKeyId: string, organizationId: string, ids: readonly string[]): Promise<string[]> {
      const where = { apiKeyId, organizationId, id: { in: [...ids] } };
      const found = await db.activity.findMany({ where, select: { id: true } });
      await db.activity.deleteMany({ where });
      return found.map((row) => row.id);
    },

    /**
     * One page of records matching every filter, in (timestamp, id) order
     * after `cursor`, at most `take`.
     *
     * Each filter has an index (apiKeyId, organizationId, <column>, timestamp,
     * id), so with equality filters the page is one ordered index range. A list
     * with several values (an IN) would instead make the database collect and
     * sort every matching row; so the list is fanned out: one ordered range
     * read per value, up to `take` rows each, merged here. A page then costs
     * at most (values × take) index rows whatever its depth.
     */
    async list(apiKeyId: string, filter: ActivityFilter, order: SortOrder, cursor: Cursor | undefined, take: number): Promise<ActivityRecord[]> {
      const base = {
        apiKeyId,
        organizationId: filter.organizationId,
        documentId: filter.documentId,
        targetEntityId: filter.targetEntityId,
        userId: filter.userId,
        id: filter.activityIds !== undefined ? { in: filter.activityIds } : undefined,
      };
      const equalOrIn = (values: readonly string[] | undefined) => (values === undefined ? undefined : values.length === 1 ? values[0]! : { in: values });
      // The hot read of the activity log: past the ORM (db/direct-reads.ts).
      const query = (where: Record<string, unknown>) =>
        selectRows(db, {
          from: 'Activity',
          columns: ACTIVITY_COLUMNS,
          where: { ...base, ...where },
          after: { cursor, order, at: 'timestamp', id: 'id' },
          orderBy: [['timestamp', order], ['id', order]],
          take,
        });

      // activityIds bound the rows to at most 30: nothing to fan out.
      const fanOut =
        filter.activityIds !== undefined
          ? undefined
          : (filter.actionTypes?.length ?? 0) > 1
            ? ('actionType' as const)
            : (filter.featureTypes?.length ?? 0) > 1
              ? ('featureType' as const)
              : undefined;
      const actionType = equalOrIn(filter.actionTypes);
      const featureType = equalOrIn(filter.featureTypes);
      const rest = {
        actionType: fanOut !== 'actionType' ? actionType : undefined,
        featureType: fanOut !== 'featureType' ? featureType : undefined,
      };
      if (fanOut === undefined) return (await query(rest)).map(activityFrom);

      const values = [...new Set(fanOut === 'actionType' ? filter.actionTypes! : filter.featureTypes!)];
      // Sequential: on SQLite the queries share one connection anyway, and on PostgreSQL a page should hold one pooled connection, not thirty.
      const rows: ActivityRow[] = [];
      for (const value of values) rows.push(...(await query({ ...rest, [fanOut]: value })));
      return rows.sort(inOrder(order)).slice(0, take).map(activityFrom);
    },

    // ── owned data ──
    moveDocument: (apiKeyId: string, organizationId: string, from: string, to: string) =>
      db.activity.updateMany({ where: { apiKeyId, organizationId, documentId: from }, data: { documentId: to } }),
    deleteDocuments: (apiKeyId: string, organizationId: string, documentIds: readonly string[]) =>
      db.activity.deleteMany({ where: { apiKeyId, organizationId, documentId: { in: [...documentIds] } } }),
    deleteOrganization: (apiKeyId: string, organizationId: string) => db.activity.deleteMany({ where: { apiKeyId, organizationId } }),
    deleteByUser: (apiKeyId: string, userId: string) => db.activity.deleteMany({ where: { apiKeyId, userId } }),
  };
}

export type ActivitiesRepo = ReturnType<typeof createActivitiesRepo>;
