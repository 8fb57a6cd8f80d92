import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract/index.js';
import { applicationOf } from '../../http/context.js';
import { done, ok } from '../../http/respond.js';
import type { CrdtService } from './service.js';

export function crdtRouter(service: CrdtService) {
  return initServer().router(contract.crdt, {
    addCrdtData: async ({ req, body }) => {
      await service.addCrdtData(applicationOf(req), body.data);
      return done('CRDT data added.');
    },
    updateCrdtData: async ({ req, body }) => {
      await service.updateCrdtData(applicationOf(req), body.data);
      return done('CRDT data updated.');
    },
    getCrdtData: async ({ req, body }) => ok('CRDT data retrieved.', await service.getCrdtData(applicationOf(req), body.data)),
    deleteCrdtData: async ({ req, body }) => {
      await service.deleteCrdtData(applicationOf(req), body.data);
      return done('CRDT data deleted.');
    },
  });
}
