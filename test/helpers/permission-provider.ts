import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { Client } from '../../sdk/index.js';
import { closeReceivers, startReceiver } from './receiver.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from './server.js';

/** A real permission provider on loopback: answers with `respond`, records what it was asked. */
export interface FakeProvider {
  url: string;
  asked: Array<{ authorization: string | undefined; body: any }>;
  respond: (body: any, res: ServerResponse) => void;
}

/** The default answer: u-yes may read documents (viewer, until 2096), nobody else anything. */
export function onlyUYesReadsDocuments(body: any, res: ServerResponse): void {
  const data = body.data.requests.map((r: any) => ({
    userId: r.userId,
    resourceId: r.resource.id,
    type: r.resource.type,
    hasAccess: r.userId === 'u-yes' && r.resource.type === 'document',
    ...(r.userId === 'u-yes' ? { accessRole: 'viewer', expiresAt: 4_000_000_000 } : {}),
  }));
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ data }));
}

export interface ProviderTestBed {
  server: TestServer;
  creds: WorkspaceCredentials;
  client: Client;
  provider: FakeProvider;
}

/**
 * Registers the calling test file's hooks: the provider, a server that may
 * reach it on loopback, and a workspace with the restricted document o/shared
 * (pointed at the provider with `turnOn`). Before each test the provider
 * forgets what it was asked and gives the default answer again.
 */
export function usePermissionProvider(options: { turnOn: boolean }): ProviderTestBed {
  const bed = { provider: { url: '', asked: [], respond: onlyUYesReadsDocuments } } as unknown as ProviderTestBed;
  beforeAll(async () => {
    const provider = await startReceiver((req, res) => {
      const body = JSON.parse(req.body);
      bed.provider.asked.push({ authorization: req.headers.authorization, body });
      bed.provider.respond(body, res);
    }, '/permissions');
    bed.provider.url = provider.url;
    bed.server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    bed.creds = await bed.server.workspace();
    bed.client = bed.server.client(bed.creds);
    await bed.client.organizations.addDocument({ organizationId: 'o', documentId: 'shared', accessType: 'restricted' });
    if (options.turnOn) {
      await bed.client.workspace.updatePermissionProviderConfig({
        usePermissionProvider: true,
        permissionProviderConfig: { permissionProviderUrl: bed.provider.url, authToken: 'provider-secret' },
      });
    }
  });
  afterAll(async () => {
    await bed.server?.close();
    await closeReceivers();
  });
  beforeEach(() => {
    bed.provider.asked = [];
    bed.provider.respond = onlyUYesReadsDocuments;
  });
  return bed;
}
