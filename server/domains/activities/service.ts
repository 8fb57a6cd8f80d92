import type { TActivity } from '../../../contract/activities/schemas.js';
import type { addActivities } from '../../../contract/activities/add-activities.js';
import type { deleteActivities } from '../../../contract/activities/delete-activities.js';
import type { getActivityLogs } from '../../../contract/activities/get-activity-logs.js';
import type { updateActivity } from '../../../contract/activities/update-activity.js';
import type { DataOf } from '../../../contract/common/envelope.js';
import { cursorAt } from '../../db/keyset.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import { failedPrecondition, notFound } from '../../lib/app-error.js';
import type { Clock } from '../../lib/clock.js';
import { deletionOutcomes } from '../../lib/id-map.js';
import type { Ids } from '../../lib/ids.js';
import type { PageTokens } from '../../lib/page-token.js';
import type { EventBus } from '../../platform/events.js';
import type { AccessLookups } from '../access/lookups.js';
import type { WorkspaceConfigService } from '../workspace/service.js';
import { pageScope } from '../../lib/page-scope.js';
import type { ActivitiesRepo, ActivityFilter, ActivityRecord } from './repo.js';
import { toActivity } from './shapes.js';
import type { Caller } from '../../platform/caller.js';

const sortedSet = (values: readonly string[] | undefined) => (values === undefined ? undefined : [...new Set(values)].sort());

export function createActivitiesService(deps: {
  repo: ActivitiesRepo;
  find: Pick<AccessLookups, 'heldDocuments' | 'organization'>;
  config: Pick<WorkspaceConfigService, 'activityConfig'>;
  uow: UnitOfWork;
  events: EventBus;
  pageTokens: PageTokens;
  ids: Ids;
  clock: Clock;
}) {
  const { repo, find, uow, events, pageTokens } = deps;

  /** The issue: Add, Update and Delete Activities are refused while the log is immutable; the service's own logging goes on. */
  async function assertMutable(apiKeyId: string): Promise<void> {
    if ((await deps.config.activityConfig(apiKeyId)).immutable === true) {
      throw failedPrecondition('the activity log is immutable for this application (activity config `immutable: true`): records cannot be added, changed or deleted through the API');
    }
  }

  return {
    async getActivityLogs(app: Caller, input: DataOf<typeof getActivityLogs>): Promise<{ items: TActivity[]; pageToken: string | null }> {
      await find.organization(app.apiKeyId, input.organizationId);
      const order = input.order ?? 'desc';
      const filter: ActivityFilter = {
        organizationId: input.organizationId,
        documentId: input.documentId,
        targetEntityId: input.targetEntityId,
        featureTypes: sortedSet(input.featureTypes),
        actionTypes: sortedSet(input.actionTypes),
        userId: input.userId,
        activityIds: sortedSet(input.activityIds),
      };
      // The token is bound to the application, the filters and the order: it works only for the query that produced it.
      const scope = pageScope('activities', app.apiKeyId, order, filter);
      const page = await pageTokens.page(
        scope,
        input,
        (after, take) => repo.list(app.apiKeyId, filter, order, after, take),
        (row) => cursorAt(row.timestamp, row.id),
      );
      return { items: page.items.map((row) => toActivity(row, app.apiKey)), pageToken: page.pageToken };
    },

    /** Records the activities and one `activity.add` event each, all in one transaction. */
    async addActivities(app: Caller, input: DataOf<typeof addActivities>): Promise<TActivity[]> {
      return uow.run(async () => {
        await assertMutable(app.apiKeyId);
        await find.organization(app.apiKeyId, input.organizationId);
        await find.heldDocuments(app.apiKeyId, input.organizationId, [...new Set(input.activities.flatMap((a) => (a.documentId !== undefined ? [a.documentId] : [])))]);
        const timestamp = BigInt(deps.clock.nowMs());
        const records: ActivityRecord[] = input.activities.map((activity) => ({
          apiKeyId: app.apiKeyId,
          id: deps.ids.next('act'),
          organizationId: input.organizationId,
          documentId: activity.documentId ?? null,
          featureType: activity.featureType,
          actionType: activity.actionType,
          userId: activity.actionUser.userId,
          actionUser: activity.actionUser,
          targetEntityId: activity.targetEntityId,
          template: activity.displayMessageTemplate,
          templateData: activity.displayMessageTemplateData ?? {},
          timestamp,
        }));
        const rows = await repo.insertMany(records);
        for (const row of rows) {
          const activity = toActivity(row, '');
          await events.publish({
            type: 'activity.add',
            apiKeyId: app.apiKeyId,
            organizationId: row.organizationId,
            ...(row.documentId !== null ? { documentId: row.documentId } : {}),
            actor: activity.actionUser,
            payload: { activity },
          });
        }
        return rows.map((row) => toActivity(row, app.apiKey));
      });
    },

    async updateActivity(app: Caller, change: DataOf<typeof updateActivity>): Promise<TActivity> {
      return uow.run(async () => {
        await assertMutable(app.apiKeyId);
        const row = await repo.find(app.apiKeyId, change.organizationId, change.activityId);
        if (!row) throw notFound(`activity ${change.activityId} does not exist in organization ${change.organizationId}`);
        const updated = await repo.update(app.apiKeyId, row.id, {
          featureType: change.featureType,
          actionType: change.actionType,
          ...(change.actionUser !== undefined ? { userId: change.actionUser.userId, actionUser: change.actionUser } : {}),
          targetEntityId: change.targetEntityId,
          template: change.displayMessageTemplate,
          templateData: change.displayMessageTemplateData,
        });
        return toActivity(updated, app.apiKey);
      });
    },

    async deleteActivities(app: Caller, input: DataOf<typeof deleteActivities>) {
      return uow.run(async () => {
        await assertMutable(app.apiKeyId);
        const deleted = new Set(await repo.deleteMany(app.apiKeyId, input.organizationId, input.activityIds));
        return deletionOutcomes(input.activityIds, deleted, 'activity', input.organizationId);
      });
    },
  };
}

export type ActivitiesService = ReturnType<typeof createActivitiesService>;
