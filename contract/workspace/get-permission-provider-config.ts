import { operation, resultOf, ZNoParams } from '../common/envelope.js';
import { EXAMPLE_PERMISSION_PROVIDER_CONFIG, ZPermissionProviderConfig } from './schemas.js';

export const getPermissionProviderConfig = operation({
  path: '/v2/workspace/permissionproviderconfig/get',
  summary: 'Get Permission Provider Config',
  description:
    'Whether permission questions go to an external permission provider, and where. Unset values read as empty strings and `false`. An invalid API key or auth token gives PERMISSION_DENIED.',
  data: ZNoParams,
  result: resultOf(ZPermissionProviderConfig),
  example: { data: {}, result: { status: 'success', message: 'Permission provider config retrieved successfully.', data: EXAMPLE_PERMISSION_PROVIDER_CONFIG } },
});
