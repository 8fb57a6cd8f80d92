import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract/index.js';
import { applicationOf } from '../../http/context.js';
import { ok, paged } from '../../http/respond.js';
import type { RecordingsService } from './service.js';

export function recordingsRouter(service: RecordingsService) {
  return initServer().router(contract.recordings, {
    getRecordings: async ({ req, body }) => paged('Recordings retrieved successfully.', await service.getRecordings(applicationOf(req), body.data)),
    addRecording: async ({ req, body }) => ok('Recording added.', await service.addRecording(applicationOf(req), body.data)),
    deleteRecordings: async ({ req, body }) => ok('Recordings deleted.', await service.deleteRecordings(applicationOf(req), body.data)),
  });
}
