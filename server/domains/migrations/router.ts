import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract/index.js';
import { applicationOf } from '../../http/context.js';
import { ok } from '../../http/respond.js';
import type { MigrationsService } from './service.js';

export function migrationsRouter(service: MigrationsService) {
  return initServer().router(contract.migrations, {
    migrateDocuments: async ({ req, body }) => ok('Document migration started.', await service.migrateDocuments(applicationOf(req), body.data)),
    getMigrateDocumentsStatus: async ({ req, body }) =>
      ok('Migration status retrieved successfully.', await service.getMigrateDocumentsStatus(applicationOf(req), body.data)),
  });
}
