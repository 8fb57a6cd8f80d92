import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract/index.js';
import { applicationOf } from '../../http/context.js';
import { ok } from '../../http/respond.js';
import type { PresenceService } from './service.js';

export function presenceRouter(service: PresenceService) {
  return initServer().router(contract.presence, {
    addPresence: async ({ req, body }) => ok('Presence added.', await service.addPresence(applicationOf(req), body.data)),
    updatePresence: async ({ req, body }) => ok('Presence updated.', await service.updatePresence(applicationOf(req), body.data)),
    deletePresence: async ({ req, body }) => ok('Presence deleted.', await service.deletePresence(applicationOf(req), body.data)),
    getPresence: async ({ req, body }) => ok('Presence retrieved.', await service.getPresence(applicationOf(req), body.data)),
  });
}
