import type { TCreateAgentData } from '../../../contract/agents/agents.js';
import { loadConfig } from '../../../server/config.js';
import { createAgentSecrets } from '../../../server/domains/agents/secrets.js';
import { openVerifiedSealer } from '../../../server/lib/master-key.js';
import type { Client } from '../../../sdk/index.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

/** The smallest valid custom agent: an `ai` agent reading page text. */
export const minimalAgent = (overrides: Record<string, unknown> = {}): TCreateAgentData => ({
  name: 'Link checker',
  description: 'Checks the links of a page.',
  enabled: true,
  instructions: 'Report every broken link.',
  contextGathering: { strategies: ['web-page-text'] },
  execution: {},
  ...overrides,
});

/** How a minimal agent's post-processing reads: every stage on, annotations by findings. */
export const DEFAULT_POST_PROCESS = {
  guardrails: { enabled: true },
  deletePreviousSuggestions: { enabled: true },
  annotations: { enabled: true, strategy: 'findings' },
  analytics: { enabled: true },
};

export const BUILTIN_IDS = ['broken-links', 'crawler', 'screenshot', 'accessibility-checker', 'og-image-checker'];

/** The application (apiKeyId) behind a workspace's API key, for reading rows directly. */
export async function applicationIdOf(server: TestServer, ws: WorkspaceCredentials): Promise<string> {
  return (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', ws.apiKey)).apiKey.id;
}

export interface AgentsTestContext {
  server: TestServer;
  ws: WorkspaceCredentials;
  client: Client;
  /** The application behind `ws`, for reading rows directly. */
  apiKeyId: string;
}

/** A server and a workspace for one test file. */
export async function startAgentsTest(): Promise<AgentsTestContext> {
  const server = await startTestServer();
  const ws = await server.workspace();
  return { server, ws, client: server.client(ws), apiKeyId: await applicationIdOf(server, ws) };
}

/**
 * A stored version's configuration with its secrets opened: what something
 * running the agent would read (the service's own reader, under the server's
 * master key).
 */
export async function openedConfig(server: TestServer, apiKeyId: string, agentId: string, version: number): Promise<any> {
  const config = loadConfig(server.env);
  const db = server.running.database.db;
  const sealer = await openVerifiedSealer(db, { envValue: config.masterKey, dataDir: config.dataDir }, server.running.services.clock);
  const row = await db.agentVersion.findFirstOrThrow({ where: { apiKeyId, agentId, version } });
  return createAgentSecrets(sealer).open(JSON.parse(row.config)).plain;
}

/** A stored version's configuration as the row holds it. */
export async function storedConfig(server: TestServer, apiKeyId: string, agentId: string, version: number): Promise<{ text: string; config: any }> {
  const row = await server.running.database.db.agentVersion.findFirstOrThrow({ where: { apiKeyId, agentId, version } });
  return { text: row.config, config: JSON.parse(row.config) };
}
