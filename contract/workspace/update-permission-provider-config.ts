import { z } from 'zod';
import { operation, resultOf } from '../common/envelope.js';
import { EXAMPLE_PERMISSION_PROVIDER_CONFIG, ZPermissionProviderConfig } from './schemas.js';

export const updatePermissionProviderConfig = operation({
  path: '/v2/workspace/permissionproviderconfig/update',
  summary: 'Update Permission Provider Config',
  description:
    'Turns the external permission provider on or off and sets where it is. Fields not sent keep their stored values. Turning it on needs a URL (INVALID_ARGUMENT otherwise); the URL must be http(s) and, unless the server runs with WEBHOOK_ALLOW_PRIVATE_URLS=true, must not resolve to a loopback, private or link-local address (INVALID_ARGUMENT). Only a URL sent is checked, so the provider can always be turned off, even when its stored URL would no longer pass. Result: the config after the write.',
  data: z
    .object({
      usePermissionProvider: z.boolean().optional(),
      permissionProviderConfig: z
        .object({
          permissionProviderUrl: z.string().max(2048).optional(),
          authToken: z.string().max(4096).optional(),
        })
        .strict()
        .optional(),
    })
    .strict()
    .refine((d) => d.usePermissionProvider !== undefined || d.permissionProviderConfig !== undefined, {
      message: 'give usePermissionProvider and/or permissionProviderConfig',
      path: ['usePermissionProvider'],
    }),
  result: resultOf(ZPermissionProviderConfig),
  example: {
    data: EXAMPLE_PERMISSION_PROVIDER_CONFIG,
    result: { status: 'success', message: 'Permission provider config updated successfully.', data: EXAMPLE_PERMISSION_PROVIDER_CONFIG },
  },
});
