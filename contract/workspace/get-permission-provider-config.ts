import { operation, resultOf, ZNoParams } from '../common/envelope.js';
import { ZPermissionProviderConfig } from './schemas.js';

export const getPermissionProviderConfig = operation({
  path: '/v2/workspace/permissionproviderconfig/get',
  summary: 'Get Permission Provider Config',
  description:
    'Whether permission questions go to an external permission provider, and where. Unset values read as empty strings and `false`. An invalid API key or auth token gives PERMISSION_DENIED.',
  data: ZNoParams,
  result: resultOf(ZPermissionProviderConfig),
});
