import type { DomainModule, Platform } from '../../platform/module.js';
import type { Access } from '../access/module.js';
import type { LiveDocuments } from './live-documents.js';
import { crdtOwnedData } from './owned-data.js';
import { createCrdtRepo } from './repo.js';
import { createCrdtService } from './service.js';
import { createCrdtStore, type CrdtStore } from './store.js';

/**
 * Collaborative documents: one store of editor documents, which the live
 * Hocuspocus documents and the REST operations both load and save through.
 * The domain names no part of the real-time layer: the composition root
 * builds the live documents (the hub) over the store with `live`, and the
 * REST operations reach them as the domain's LiveDocuments.
 */
export function crdtModule<Live extends LiveDocuments>(p: Platform, deps: { access: Access; live: (store: CrdtStore) => Live }) {
  const { repos, find, ensureHeldDocument } = deps.access;
  const repo = createCrdtRepo(p.db);
  const store = createCrdtStore({ repo, find, documents: repos.documents, ensureHeldDocument, uow: p.uow, events: p.events, clock: p.clock });
  const live = deps.live(store);
  const crdt = createCrdtService({ store, live, uow: p.uow, clock: p.clock });
  return { services: { crdt }, shared: { live }, ownedData: [crdtOwnedData(repo, live)] } satisfies DomainModule;
}
