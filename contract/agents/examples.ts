import type { TAgentSummary, TCustomAgent } from './schemas.js';

/**
 * The custom agent the examples follow: created (version 1), then given
 * sharper instructions (version 2). The secret header of its MCP server
 * reads `__redacted__`, as every read returns it.
 */

export const STYLE_AGENT_ID = 'agt_01KM5B0080HEG71HQ6XBBJEHN8';

/** What Create Agent takes and every read returns beside the behavioral fields. */
export const STYLE_AGENT_IDENTITY = {
  name: 'Style guide checker',
  description: 'Flags copy on a page that breaks the Acme style guide.',
  enabled: true,
};

export const INSTRUCTIONS_V1 = 'Read the page text and report every sentence that breaks the Acme style guide, quoting the rule it breaks.';
export const INSTRUCTIONS_V2 =
  'Read the page text and report every sentence that breaks the Acme style guide, quoting the rule it breaks and suggesting a rewrite.';

/** The agent as Get Agent(s) lists it. */
export const STYLE_AGENT_SUMMARY: TAgentSummary = {
  id: STYLE_AGENT_ID,
  ...STYLE_AGENT_IDENTITY,
  managedBy: 'customer',
  version: 1,
  executionCount: 0,
  lastExecutedAt: null,
};

/** Version 1, as Create Agent returns it. */
export const STYLE_AGENT_V1: TCustomAgent = {
  id: STYLE_AGENT_ID,
  ...STYLE_AGENT_IDENTITY,
  managedBy: 'customer',
  version: 1,
  instructions: INSTRUCTIONS_V1,
  contextGathering: { strategies: ['web-page-text'] },
  execution: {
    executionStrategy: 'mcp-tools',
    mcpServers: [{ name: 'style-guide', url: 'https://mcp.example.com/style-guide', headers: { Authorization: '__redacted__' } }],
  },
  postProcess: {
    guardrails: { enabled: true },
    deletePreviousSuggestions: { enabled: true },
    annotations: { enabled: true, strategy: 'word-level' },
    analytics: { enabled: true },
  },
  scope: { pageScope: ['https://www.example.com/blog/**'] },
};

/** Version 2, as Update Agent Version returns it: only the instructions changed. */
export const STYLE_AGENT_V2: TCustomAgent = { ...STYLE_AGENT_V1, version: 2, instructions: INSTRUCTIONS_V2 };
