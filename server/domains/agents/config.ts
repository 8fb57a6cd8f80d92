import { CUSTOM_MANAGED_BY, type TCustomAgent } from '../../../contract/agents/schemas.js';
import { configRuleIssues, configShapeIssues, type ConfigIssue } from '../../../contract/agents/rules.js';
import { invalidArgument } from '../../lib/app-error.js';
import { redactSecrets, type Config } from './secrets.js';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Update Agent Version's merge: each top-level field given replaces the
 * stored one, except that two objects merge one level deep
 * (`{...stored, ...given}`); `null` removes the field.
 */
export function mergeVersion(stored: Config, given: Config): Config {
  const merged: Config = { ...stored };
  for (const [key, value] of Object.entries(given)) {
    if (value === null) {
      delete merged[key];
      continue;
    }
    const before = merged[key];
    merged[key] = isObject(before) && isObject(value) ? { ...before, ...value } : value;
  }
  return merged;
}

/** What is stored of a valid configuration: `postProcess.matchAndMerge` is deprecated and ignored, so it is dropped. */
export function normalizeConfig(config: Config): Config {
  if (!isObject(config.postProcess) || !Object.hasOwn(config.postProcess, 'matchAndMerge')) return config;
  const { matchAndMerge: _ignored, ...postProcess } = config.postProcess;
  return { ...config, postProcess };
}

const formatPath = (path: ConfigIssue['path']) => path.reduce<string>((out, part) => (typeof part === 'number' ? `${out}[${part}]` : `${out}.${part}`), 'data');

/** Create Agent's rules on a merged configuration: INVALID_ARGUMENT naming each failing field, as the contract would. */
export function assertValidConfig(config: Config): void {
  const issues = [...configShapeIssues(config), ...configRuleIssues(config)];
  if (issues.length > 0) throw invalidArgument(issues.slice(0, 5).map((issue) => `${formatPath(issue.path)}: ${issue.message}`).join('; '));
}

const stageOn = (stage: unknown) => ({ enabled: !(isObject(stage) && stage.enabled === false) });

/** Every post-processing stage with its effective `enabled` (default true) and the annotation strategy (default `findings`). */
function effectivePostProcess(postProcess: unknown): TCustomAgent['postProcess'] {
  const given = isObject(postProcess) ? postProcess : {};
  const annotations = isObject(given.annotations) ? given.annotations : {};
  return {
    guardrails: stageOn(given.guardrails),
    deletePreviousSuggestions: stageOn(given.deletePreviousSuggestions),
    annotations: { ...stageOn(annotations), strategy: (annotations.strategy as TCustomAgent['postProcess']['annotations']['strategy'] | undefined) ?? 'findings' },
    analytics: stageOn(given.analytics),
    ...(Array.isArray(given.customProcessors) ? { customProcessors: given.customProcessors as string[] } : {}),
  };
}

export interface AgentIdentity {
  id: string;
  name: string;
  description: string;
  enabled: boolean;
}

/** A custom agent as its reads show it: identity, the version, and that version's behavioral fields, secrets redacted. */
export function toCustomAgent(agent: AgentIdentity, version: number, storedConfig: Config): TCustomAgent {
  const view = redactSecrets(storedConfig);
  const execution = isObject(view.execution) ? view.execution : {};
  return {
    id: agent.id,
    name: agent.name,
    description: agent.description,
    enabled: agent.enabled,
    managedBy: CUSTOM_MANAGED_BY,
    version,
    ...view,
    contextGathering: view.contextGathering as TCustomAgent['contextGathering'],
    execution: { executionStrategy: 'ai', ...execution } as TCustomAgent['execution'],
    postProcess: effectivePostProcess(view.postProcess),
  };
}
