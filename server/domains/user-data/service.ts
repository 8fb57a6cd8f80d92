import { z } from 'zod';
import type { DataOf } from '../../../contract/common/envelope.js';
import type { deleteAllUserData, getDeleteAllUserDataStatus } from '../../../contract/users/delete-all-user-data.js';
import { USER_DATA_PAGE_SIZE, type getAllUserData, type TUserData } from '../../../contract/users/get-all-user-data.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import { notFound } from '../../lib/app-error.js';
import { ZCursorTuple, type PageTokens } from '../../lib/page-token.js';
import { publicJobStatus } from '../../platform/job-status.js';
import type { Jobs } from '../../platform/jobs.js';
import type { OwnedDataRegistry, UserDataFeature } from '../../platform/owned-data.js';
import type { AccessLookups } from '../access/lookups.js';
import type { Caller } from '../../platform/caller.js';

const FEATURES = ['comments', 'reactions', 'recordings', 'notifications', 'judgments'] as const satisfies readonly UserDataFeature[];

/**
 * The position of each feature in a Get All User Data token: the cursor of
 * the last item returned, or null when the feature has nothing more.
 */
const ZPosition = ZCursorTuple.nullable();
const ZUserDataToken = z.object({ comments: ZPosition, reactions: ZPosition, recordings: ZPosition, notifications: ZPosition, judgments: ZPosition }).strict();
type Position = z.infer<typeof ZPosition>;

const ZErasure = z.object({ apiKeyId: z.string(), userId: z.string() });

export function createUserDataService(deps: { find: Pick<AccessLookups, 'organization'>; uow: UnitOfWork; jobs: Jobs; owned: OwnedDataRegistry; pageTokens: PageTokens }) {
  const { find, uow, jobs, owned, pageTokens } = deps;

  // GDPR erasure is per person, so per application: every organization, every registered table.
  // One unit of work: the user's data is gone entirely or not at all, and a run after a crash
  // simply erases again (every eraseUser is idempotent).
  const erasure = jobs.define({
    kind: 'user-data.erase',
    idPrefix: 'del',
    payload: ZErasure,
    async run({ payload }) {
      await uow.run(() => owned.eraseUser({ apiKeyId: payload.apiKeyId, userId: payload.userId }));
      return { erased: true };
    },
  });

  return {
    /**
     * One page per feature, each read through the source its domain
     * registered (a feature nobody registered yet is empty). The token keeps
     * one cursor per feature, so a feature that ran out stays out while the
     * others go on.
     */
    async getAllUserData(app: Caller, input: DataOf<typeof getAllUserData>): Promise<{ data: TUserData; nextPageToken: string | null }> {
      await find.organization(app.apiKeyId, input.organizationId);
      const scope = ['userData', app.apiKeyId, input.organizationId, input.userId].join('\n');
      const positions = input.pageToken === undefined ? undefined : pageTokens.open(scope, input.pageToken, ZUserDataToken);
      const key = { apiKeyId: app.apiKeyId, apiKey: app.apiKey, organizationId: input.organizationId, userId: input.userId };

      const pages = await Promise.all(
        FEATURES.map(async (feature): Promise<{ items: unknown[]; next: Position }> => {
          const source = owned.userDataSource(feature);
          const position = positions?.[feature];
          if (source === undefined || position === null) return { items: [], next: null };
          const after = position === undefined ? undefined : { at: position[0], id: position[1] };
          // One more than a page tells whether another page exists.
          const rows = await source.list(key, after, USER_DATA_PAGE_SIZE + 1);
          const page = rows.slice(0, USER_DATA_PAGE_SIZE);
          const last = page[page.length - 1];
          return { items: page.map((row) => row.item), next: rows.length > USER_DATA_PAGE_SIZE && last !== undefined ? [last.cursor.at, last.cursor.id] : null };
        }),
      );
      const byFeature = Object.fromEntries(FEATURES.map((feature, i) => [feature, pages[i]!])) as Record<(typeof FEATURES)[number], { items: unknown[]; next: Position }>;
      const next: z.infer<typeof ZUserDataToken> = {
        comments: byFeature.comments.next,
        reactions: byFeature.reactions.next,
        recordings: byFeature.recordings.next,
        notifications: byFeature.notifications.next,
        judgments: byFeature.judgments.next,
      };
      return {
        // Items come in the contract's shapes from their sources; the response is validated against them.
        data: {
          comments: byFeature.comments.items as TUserData['comments'],
          reactions: byFeature.reactions.items as TUserData['reactions'],
          recordings: byFeature.recordings.items as TUserData['recordings'],
          notifications: byFeature.notifications.items as TUserData['notifications'],
          judgments: byFeature.judgments.items as TUserData['judgments'],
        },
        nextPageToken: FEATURES.some((feature) => next[feature] !== null) ? pageTokens.seal(scope, next) : null,
      };
    },

    async deleteAllUserData(app: Caller, input: DataOf<typeof deleteAllUserData>): Promise<{ jobId: string }> {
      // No idempotency key: a key would keep returning a finished job, while a user added again
      // after an erasure must be erasable again. Two jobs for one user are harmless.
      const jobId = await uow.run(() => jobs.enqueue(erasure, { apiKeyId: app.apiKeyId, userId: input.userId }, { apiKeyId: app.apiKeyId }));
      return { jobId };
    },

    async getDeleteAllUserDataStatus(app: Caller, input: DataOf<typeof getDeleteAllUserDataStatus>) {
      const job = await jobs.get(input.jobId);
      // Another application's job, or another kind of job, reads exactly like an unknown one.
      if (job === null || job.kind !== erasure.kind || job.apiKeyId !== app.apiKeyId) throw notFound(`user data deletion job ${input.jobId} does not exist`);
      return { jobId: job.id, ...publicJobStatus(job) };
    },
  };
}

export type UserDataService = ReturnType<typeof createUserDataService>;
