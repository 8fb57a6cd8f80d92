import type { DomainModule, Platform } from '../../platform/module.js';
import { createAccessChecks } from './checks.js';
import { createAccessLookups } from './lookups.js';
import { createEnsureHeldDocument } from './open-document.js';
import { accessOwnedData } from './owned-data.js';
import { createAccessRepos } from './repos/index.js';

/**
 * The access model, the shared core several domains read: its repos (one
 * per aggregate), the lookups, the ensure-and-hold of a document, and the
 * checks of what a user may do on a document and who may read it (content
 * reads, notification fan-out, real-time connections). No service of its own.
 */
export function accessModule(p: Platform) {
  const repos = createAccessRepos(p.db, p.clock);
  return {
    services: {},
    shared: {
      repos,
      find: createAccessLookups(repos),
      ensureHeldDocument: createEnsureHeldDocument(repos),
      checks: createAccessChecks({ ...repos, now: p.clock.now }),
    },
    ownedData: [accessOwnedData(repos)],
  } satisfies DomainModule;
}

export type Access = ReturnType<typeof accessModule>['shared'];
