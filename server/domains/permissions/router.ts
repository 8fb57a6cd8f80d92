import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract/index.js';
import { applicationOf } from '../../http/context.js';
import { done, ok } from '../../http/respond.js';
import type { PermissionsService } from './service.js';

export function permissionsRouter(service: PermissionsService) {
  return initServer().router(contract.permissions, {
    getPermissions: async ({ req, body }) => ok('Permissions retrieved successfully.', await service.getPermissions(applicationOf(req), body.data)),

    addPermissions: async ({ req, body }) => {
      await service.addPermissions(applicationOf(req), body.data);
      return done('Permissions added successfully.');
    },

    removePermissions: async ({ req, body }) => {
      await service.removePermissions(applicationOf(req), body.data);
      return done('Permissions removed successfully.');
    },

    generateToken: async ({ req, body }) => ok('Token generated successfully.', await service.generateToken(applicationOf(req), body.data)),
  });
}
