import type { TCreateAgentData } from '../../../contract/agents/agents.js';
import type { TestServer, WorkspaceCredentials } from '../../helpers/server.js';

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
