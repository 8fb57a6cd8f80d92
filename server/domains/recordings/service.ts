import type { DataOf } from '../../../contract/common/envelope.js';
import type { addRecording } from '../../../contract/recordings/add-recording.js';
import type { deleteRecordings } from '../../../contract/recordings/delete-recordings.js';
import type { getRecordings } from '../../../contract/recordings/get-recordings.js';
import type { TRecording } from '../../../contract/recordings/schemas.js';
import { isUniqueViolation } from '../../db/errors.js';
import { creationCursor } from '../../db/keyset.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import { alreadyExists } from '../../lib/app-error.js';
import type { Clock } from '../../lib/clock.js';
import { deletionOutcomes } from '../../lib/id-map.js';
import type { Ids } from '../../lib/ids.js';
import type { PageTokens } from '../../lib/page-token.js';
import type { EventBus } from '../../platform/events.js';
import type { AccessLookups } from '../access/lookups.js';
import { pageScope } from '../../lib/page-scope.js';
import type { RecordingRecord, RecordingsRepo } from './repo.js';
import { durationDisplay, toRecording } from './shapes.js';
import type { Caller } from '../../platform/caller.js';

export function createRecordingsService(deps: {
  repo: RecordingsRepo;
  find: Pick<AccessLookups, 'heldDocuments' | 'organization'>;
  uow: UnitOfWork;
  events: EventBus;
  pageTokens: PageTokens;
  ids: Ids;
  clock: Clock;
}) {
  const { repo, uow, events, pageTokens, find } = deps;

  return {
    /** Stores the recorder annotation and publishes `recorder.done` in the same transaction. */
    async addRecording(app: Caller, input: DataOf<typeof addRecording>): Promise<TRecording> {
      const taken = () => alreadyExists(`recording ${input.annotationId} already exists`);
      try {
        return await uow.run(async () => {
          await find.organization(app.apiKeyId, input.organizationId);
          await find.heldDocuments(app.apiKeyId, input.organizationId, [input.documentId]);
          if (input.annotationId !== undefined && (await repo.exists(app.apiKeyId, input.annotationId))) throw taken();
          const recording: RecordingRecord = {
            apiKeyId: app.apiKeyId,
            id: input.annotationId ?? deps.ids.next('rec'),
            organizationId: input.organizationId,
            documentId: input.documentId,
            userId: input.from.userId,
            fromUser: input.from,
            recordingType: input.recordingType,
            mode: input.mode,
            displayName: input.displayName,
            durationMs: input.recordedTime.duration,
            durationDisplay: input.recordedTime.display ?? durationDisplay(input.recordedTime.duration),
            attachments: input.attachments,
            latestVersion: input.latestVersion ?? 1,
            createdAt: BigInt(deps.clock.nowMs()),
          };
          const row = await repo.insert(recording);
          await events.publish({
            type: 'recorder.done',
            apiKeyId: app.apiKeyId,
            organizationId: row.organizationId,
            documentId: row.documentId,
            actor: input.from,
            payload: { recording: toRecording(row, '') },
          });
          return toRecording(row, app.apiKey);
        });
      } catch (error) {
        // Two adds of one annotationId at once: the second loses at the primary key.
        if (isUniqueViolation(error)) throw taken();
        throw error;
      }
    },

    async getRecordings(app: Caller, input: DataOf<typeof getRecordings>) {
      await find.organization(app.apiKeyId, input.organizationId);
      const ids = input.recordingIds === undefined ? undefined : [...new Set(input.recordingIds)].sort();
      const scope = pageScope('recordings', app.apiKeyId, input.organizationId, input.documentId ?? null, ids ?? null);
      const page = await pageTokens.page(
        scope,
        input,
        (after, take) => repo.list(app.apiKeyId, { organizationId: input.organizationId, documentId: input.documentId, ids, after, take }),
        creationCursor,
      );
      return { items: page.items.map((row) => toRecording(row, app.apiKey)), pageToken: page.pageToken };
    },

    async deleteRecordings(app: Caller, input: DataOf<typeof deleteRecordings>) {
      const deleted = new Set(await uow.run(() => repo.deleteMany(app.apiKeyId, input.organizationId, input.annotationIds)));
      return deletionOutcomes(input.annotationIds, deleted, 'recording', input.organizationId);
    },
  };
}

export type RecordingsService = ReturnType<typeof createRecordingsService>;
