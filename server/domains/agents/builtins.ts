import { BUILTIN_MANAGED_BY, type TBuiltinAgent } from '../../../contract/agents/schemas.js';

/**
 * The built-in agents every application has: the five services the
 * specification names as `serviceId`s. Their identity is fixed here; only
 * `enabled` is per application (BuiltinAgentState). Catalog order is the
 * order lists show them in.
 */
export interface BuiltinAgentDefinition {
  id: string;
  name: string;
  description: string;
  input?: TBuiltinAgent['input'];
}

const urlInput = (title: string): TBuiltinAgent['input'] => ({
  userContextFields: [{ id: 'url', title, type: 'string', required: true, example: 'https://example.com' }],
  inputRequirements: { requires: ['url'] },
});

export const BUILTIN_AGENTS: readonly BuiltinAgentDefinition[] = [
  { id: 'broken-links', name: 'Broken Links', description: 'Finds links on a page that lead to missing or failing pages.' },
  { id: 'crawler', name: 'Crawler', description: 'Discovers the pages of a site from a start URL.', input: urlInput('Start URL') },
  { id: 'screenshot', name: 'Screenshot', description: 'Captures a full-page screenshot of a URL.', input: urlInput('Page URL') },
  { id: 'accessibility-checker', name: 'Accessibility Checker', description: 'Reports accessibility issues of a page.' },
  { id: 'og-image-checker', name: 'OG Image Checker', description: "Checks a page's Open Graph image and its metadata." },
];

const byId = new Map(BUILTIN_AGENTS.map((agent) => [agent.id, agent]));

export function builtinAgent(id: string): BuiltinAgentDefinition | undefined {
  return byId.get(id);
}

/** A built-in agent as Get Agent(s) reads it alone. */
export function toBuiltinAgent(definition: BuiltinAgentDefinition, enabled: boolean): TBuiltinAgent {
  return {
    id: definition.id,
    name: definition.name,
    description: definition.description,
    enabled,
    managedBy: BUILTIN_MANAGED_BY,
    system: true,
    ...(definition.input === undefined ? {} : { input: structuredClone(definition.input) }),
  };
}
