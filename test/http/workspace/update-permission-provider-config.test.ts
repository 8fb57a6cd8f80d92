// Update Permission Provider Config: turning the provider on and off, the
// fields kept, and the URLs refused; what the provider then decides is
// test/http/permissions/permission-provider.test.ts.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { expectCollabError } from '../../helpers/credentials.js';
import { createClient } from '../../../sdk/index.js';
import { loadConfig } from '../../../server/config.js';
import { startServer } from '../../../server/server.js';
import { startTestServer } from '../../helpers/server.js';
import { usePermissionProvider } from '../../helpers/permission-provider.js';

const bed = usePermissionProvider({ turnOn: false });

describe('Update Permission Provider Config', () => {
  it('turns the provider on and reads back, keeping fields not sent', async () => {
    const updated = await bed.client.workspace.updatePermissionProviderConfig({
      usePermissionProvider: true,
      permissionProviderConfig: { permissionProviderUrl: bed.provider.url, authToken: 'provider-secret' },
    });
    expect(updated.data).toEqual({ usePermissionProvider: true, permissionProviderConfig: { permissionProviderUrl: bed.provider.url, authToken: 'provider-secret' } });
    const off = await bed.client.workspace.updatePermissionProviderConfig({ usePermissionProvider: false });
    expect(off.data.permissionProviderConfig.authToken).toBe('provider-secret');
    await bed.client.workspace.updatePermissionProviderConfig({ usePermissionProvider: true });
    expect((await bed.client.workspace.getPermissionProviderConfig()).data.usePermissionProvider).toBe(true);
  });

  it('needs a URL to turn on, and at least one field', async () => {
    const fresh = bed.server.client(await bed.server.workspace());
    await expectCollabError(fresh.workspace.updatePermissionProviderConfig({ usePermissionProvider: true }), 'INVALID_ARGUMENT', /permissionProviderUrl is required/);
    await expectCollabError(fresh.workspace.updatePermissionProviderConfig({}), 'INVALID_ARGUMENT', /give usePermissionProvider/);
    await expectCollabError(
      fresh.workspace.updatePermissionProviderConfig({ permissionProviderConfig: { permissionProviderUrl: 'ftp://example.com/x' } }),
      'INVALID_ARGUMENT',
    );
  });
});

describe('Update Permission Provider Config: provider URLs that resolve to private addresses', () => {
  it('are refused unless WEBHOOK_ALLOW_PRIVATE_URLS=true', async () => {
    const strict = await startTestServer();
    try {
      const c = strict.client(await strict.workspace());
      for (const url of ['http://127.0.0.1:9/x', 'http://localhost/x', 'http://10.1.2.3/x', 'http://169.254.169.254/latest']) {
        await expectCollabError(
          c.workspace.updatePermissionProviderConfig({ usePermissionProvider: true, permissionProviderConfig: { permissionProviderUrl: url } }),
          'INVALID_ARGUMENT',
          /WEBHOOK_ALLOW_PRIVATE_URLS/,
        );
      }
      expect((await c.workspace.getPermissionProviderConfig()).data.usePermissionProvider).toBe(false);
    } finally {
      await strict.close();
    }
  });

  it('a stored URL that is no longer allowed does not keep the provider from being turned off', async () => {
    // Set while private URLs were allowed; the same database then served with
    // them refused: the stored URL now fails the check, as one whose host
    // stopped resolving does. Only a URL sent in the request is checked.
    const lax = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    const creds = await lax.workspace();
    await lax.client(creds).workspace.updatePermissionProviderConfig({ usePermissionProvider: true, permissionProviderConfig: { permissionProviderUrl: 'http://127.0.0.1:9/x' } });
    const strict = await startServer(loadConfig({ ...lax.env, WEBHOOK_ALLOW_PRIVATE_URLS: 'false' }), { logger: pino({ level: 'silent' }) });
    try {
      const c = createClient({ baseUrl: strict.url, ...creds });
      const off = await c.workspace.updatePermissionProviderConfig({ usePermissionProvider: false });
      expect(off.data).toMatchObject({ usePermissionProvider: false, permissionProviderConfig: { permissionProviderUrl: 'http://127.0.0.1:9/x' } });
      // Clients that send the whole config back, stored URL included, can turn it off too.
      const resent = await c.workspace.updatePermissionProviderConfig({ usePermissionProvider: false, permissionProviderConfig: { permissionProviderUrl: 'http://127.0.0.1:9/x' } });
      expect(resent.data.usePermissionProvider).toBe(false);
      // A new URL sent in the request is still checked.
      await expectCollabError(
        c.workspace.updatePermissionProviderConfig({ permissionProviderConfig: { permissionProviderUrl: 'http://10.0.0.1/x' } }),
        'INVALID_ARGUMENT',
        /WEBHOOK_ALLOW_PRIVATE_URLS/,
      );
    } finally {
      await strict.close();
      await lax.close();
    }
  });
});
