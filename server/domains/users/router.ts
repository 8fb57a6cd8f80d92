import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract/index.js';
import { applicationOf } from '../../http/context.js';
import { ok, paged } from '../../http/respond.js';
import type { UsersService } from './service.js';

export function usersRouter(service: UsersService) {
  const deleteUsers = async ({ req, body }: { req: Parameters<typeof applicationOf>[0]; body: { data: Parameters<UsersService['deleteUsers']>[1] } }) =>
    ok('Users deleted.', await service.deleteUsers(applicationOf(req), body.data));
  const deleteFromGroup = async ({ req, body }: { req: Parameters<typeof applicationOf>[0]; body: { data: Parameters<UsersService['deleteUsersFromGroup']>[1] } }) =>
    ok('Users deleted from user group.', await service.deleteUsersFromGroup(applicationOf(req), body.data));

  return initServer().router(contract.users, {
    addUsers: async ({ req, body }) => ok('Users added.', await service.addUsers(applicationOf(req), body.data)),

    getUsers: async ({ req, body }) => paged('Users retrieved successfully.', await service.getUsers(applicationOf(req), body.data)),

    updateUsers: async ({ req, body }) => ok('Users updated.', await service.updateUsers(applicationOf(req), body.data)),
    deleteUsers,
    deleteUsersV2: deleteUsers,
    addUserGroup: async ({ req, body }) => ok('User group added.', await service.addUserGroup(applicationOf(req), body.data)),
    addUsersToGroup: async ({ req, body }) => ok('Users added to user group.', await service.addUsersToGroup(applicationOf(req), body.data)),
    deleteUsersFromGroup: deleteFromGroup,
    deleteUsersFromGroupV2: deleteFromGroup,
  });
}
