import type { ServerResponse } from 'node:http';
import type { Client } from '../../sdk/index.js';
import type { StartOptions } from '../../server/server.js';
import { closeReceivers, startReceiver, type Received } from './receiver.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from './server.js';
import { createEndpoint, enableWebhooks, type EndpointInput } from './webhooks.js';

/**
 * The one fixture for a test server that delivers webhooks to local receivers
 * (test/webhooks/, test/sdk/, test/faults/): the server, workspaces with
 * advanced webhooks on, and endpoints each with a receiver of their own.
 *
 *   let server: WebhookTestServer;
 *   beforeAll(async () => (server = await startWebhookServer()));
 *   afterAll(() => server?.close());
 *   …
 *   const { client } = await server.webhookApp();
 *   const endpoint = await receiverEndpoint(client);
 *   await eventually(() => endpoint.received.length === 1, 'the delivery');
 */
export interface WebhookTestServer extends TestServer {
  /** A new workspace with advanced webhooks turned on, and a client of it. */
  webhookApp(): Promise<{ ws: WorkspaceCredentials; client: Client }>;
  /** Stops the server, drops its database, and closes every receiver started in this file. */
  close(): Promise<void>;
}

/** What every webhook test server has: receivers on 127.0.0.1 are allowed, and due deliveries are looked for every 20 ms. */
export const WEBHOOK_TEST_ENV: NodeJS.ProcessEnv = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_POLL_INTERVAL_MS: '20' };

/** startTestServer with WEBHOOK_TEST_ENV under `env`. */
export async function startWebhookServer(env: NodeJS.ProcessEnv = {}, options: StartOptions = {}): Promise<WebhookTestServer> {
  const server = await startTestServer({ ...WEBHOOK_TEST_ENV, ...env }, options);
  const closeServer = server.close;
  return Object.assign(server, {
    async webhookApp() {
      const ws = await server.workspace();
      const client = server.client(ws);
      await enableWebhooks(client);
      return { ws, client };
    },
    async close() {
      try {
        await closeServer();
      } finally {
        await closeReceivers();
      }
    },
  });
}

/** A receiver's answer: 204, at once. */
export const noContent = (_req: Received, res: ServerResponse) => void res.writeHead(204).end();

/**
 * A local receiver answering with `answer` (204 by default) and an endpoint of
 * `client`'s application pointed at it: its ID, its signing secret, and what
 * the receiver got.
 */
export async function receiverEndpoint(
  client: Client,
  answer: (req: Received, res: ServerResponse) => void = noContent,
  fields: Omit<EndpointInput, 'url'> = {},
): Promise<{ id: string; secret: string; url: string; received: Received[] }> {
  const receiver = await startReceiver(answer);
  const endpoint = await createEndpoint(client, { url: receiver.url, ...fields });
  return { ...endpoint, url: receiver.url, received: receiver.received };
}
