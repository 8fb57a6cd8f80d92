import { ZodError } from 'zod';
import { CUSTOM_MANAGED_BY, ZAgentConfig, type TCustomAgent } from '../../../contract/agents/schemas.js';
import { describeZodError } from '../../http/error-handler.js';
import { invalidArgument } from '../../lib/app-error.js';
import { redactSecrets, type Config } from './secrets.js';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `{...stored, ...given}` without the keys `given` sets to `null`; built from entries, so any key stays a plain key. */
function withoutNulls(stored: Record<string, unknown>, given: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries({ ...stored, ...given }).filter(([key, value]) => !(value === null && Object.hasOwn(given, key))));
}

/**
 * Update Agent Version's merge: each top-level field given replaces the
 * stored one, except that an object merges one level deep into the stored
 * object (`{...stored, ...given}`); `null` removes the field, and `null` for
 * a key of such an object removes that key.
 */
export function mergeVersion(stored: Config, given: Config): Config {
  return Object.fromEntries(
    Object.entries(withoutNulls(stored, given)).map(([key, value]) => {
      if (!Object.hasOwn(given, key) || !isObject(value)) return [key, value];
      const before = Object.hasOwn(stored, key) ? stored[key] : undefined;
      return [key, withoutNulls(isObject(before) ? before : {}, value)];
    }),
  );
}

/** What is stored of a valid configuration: `postProcess.matchAndMerge` is deprecated and ignored, so it is dropped. */
export function normalizeConfig(config: Config): Config {
  if (!isObject(config.postProcess) || !Object.hasOwn(config.postProcess, 'matchAndMerge')) return config;
  const { matchAndMerge: _ignored, ...postProcess } = config.postProcess;
  return { ...config, postProcess };
}

/** Create Agent's schema and rules on a merged configuration: INVALID_ARGUMENT naming each failing field, as the contract would. */
export function assertValidConfig(config: Config): void {
  const result = ZAgentConfig.safeParse(config);
  if (result.success) return;
  throw invalidArgument(describeZodError(new ZodError(result.error.issues.map((issue) => ({ ...issue, path: ['data', ...issue.path] })))));
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
