import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract/index.js';
import { applicationOf } from '../../http/context.js';
import { ok } from '../../http/respond.js';
import type { LiveStateService } from './service.js';

export function liveStateRouter(service: LiveStateService) {
  return initServer().router(contract.liveState, {
    broadcastEvent: async ({ req, body }) => ok('Event broadcast.', await service.broadcastEvent(applicationOf(req), body.data)),
    getLiveStateData: async ({ req, body }) => ok('Live state data retrieved.', await service.getLiveStateData(applicationOf(req), body.data)),
  });
}
