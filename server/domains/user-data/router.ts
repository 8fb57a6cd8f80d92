import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract/index.js';
import { applicationOf } from '../../http/context.js';
import { ok } from '../../http/respond.js';
import type { UserDataService } from './service.js';

export function userDataRouter(service: UserDataService) {
  const getAllUserData = async ({ req, body }: { req: Parameters<typeof applicationOf>[0]; body: { data: Parameters<UserDataService['getAllUserData']>[1] } }) => {
    const page = await service.getAllUserData(applicationOf(req), body.data);
    // nextPageToken sits beside data, as the specification shows.
    return { status: 200 as const, body: { result: { status: 'success' as const, message: 'User data retrieved successfully.', data: page.data, nextPageToken: page.nextPageToken } } };
  };
  return initServer().router(contract.userData, {
    getAllUserData,
    getAllUserDataV2: getAllUserData,
    deleteAllUserData: async ({ req, body }) => ok('User data deletion started.', await service.deleteAllUserData(applicationOf(req), body.data)),
    getDeleteAllUserDataStatus: async ({ req, body }) =>
      ok('User data deletion status retrieved successfully.', await service.getDeleteAllUserDataStatus(applicationOf(req), body.data)),
  });
}
