import type { DomainModule, Platform } from '../../platform/module.js';
import type { Access } from '../access/module.js';
import { createPresenceAwareness } from './awareness.js';
import { createConnectedUsers } from './connected-users.js';
import { presenceOwnedData } from './owned-data.js';
import { createPresenceRepo } from './repo.js';
import { createPresenceService } from './service.js';

type ConnectedUsersDeps = Parameters<typeof createConnectedUsers>[0];

/**
 * Presence: stored rows, delivered to connected clients on every process
 * through the fan-out as awareness states, and the WebSocket users of each
 * document (reported to the directory) for Get Presence.
 */
export function presenceModule(p: Platform, deps: { access: Access; live: ConnectedUsersDeps['live'] & Parameters<typeof createPresenceAwareness>[0]['live']; directory: ConnectedUsersDeps['directory'] }) {
  const repo = createPresenceRepo(p.db);
  const presenceAwareness = createPresenceAwareness({ live: deps.live, fanout: p.fanout, repo, uow: p.uow, log: p.logger });
  const connectedUsers = createConnectedUsers({ live: deps.live, directory: deps.directory, clock: p.clock, log: p.logger });
  const presence = createPresenceService({ repo, find: deps.access.find, uow: p.uow, clock: p.clock, awareness: presenceAwareness, connected: connectedUsers });
  return { services: { presence, presenceAwareness, connectedUsers }, ownedData: [presenceOwnedData(repo, presenceAwareness)] } satisfies DomainModule;
}
