import type { TExecutionError } from '../../../../contract/agents/executions.js';
import { providerOf } from '../../ai/providers.js';
import type { Config } from '../secrets.js';

/**
 * What a run does, read from its agent's configuration (the version pinned
 * when it started, secrets opened in memory) and the run's own options.
 */
export interface RunPlan {
  instructions: string;
  strategies: string[];
  strategyOptions: Record<string, unknown> | undefined;
  execution: { strategy: string; serviceId: string };
  /** The model for `ai` and `service+ai`; null otherwise. */
  model: string | null;
  userContext: Record<string, string | number | boolean>;
  guardrails: boolean;
  deletePrevious: boolean;
  annotate: boolean;
  inScope(url: string): boolean;
  /** Why this run cannot run at all (a strategy this server does not run): it ends `error` at once. */
  refused?: TExecutionError;
  unsupported?: TExecutionError;
}

/** The model when neither the run nor the agent names one, per provider (docs/agents.md). */
export const DEFAULT_MODELS = { openai: 'gpt-4o-mini', anthropic: 'claude-3-5-haiku-latest', gemini: 'gemini-2.0-flash' } as const;

/** What each built-in service gathers: a built-in agent is its service on the page. */
export const SERVICE_STRATEGIES: Record<string, string[]> = {
  'broken-links': ['web-page-links'],
  crawler: ['web-page-links'],
  screenshot: ['web-page-screenshot'],
  'accessibility-checker': ['web-page-accessibility'],
  'og-image-checker': ['web-page-html'],
};

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

export interface RunOptions {
  aiConfig?: { provider?: 'openai' | 'anthropic' | 'gemini'; model?: string } | undefined;
  userContext: Record<string, string | number | boolean>;
}

/** The model of a run: the run's, else the agent's (`execution.aiConfig`, then `contextGathering.aiConfig`), else the provider's default. */
export function modelOf(config: Config, run: RunOptions['aiConfig']): string {
  const execution = record(record(config.execution)?.aiConfig);
  const gathering = record(record(config.contextGathering)?.aiConfig);
  const named = text(run?.model) ?? text(execution?.model) ?? text(gathering?.model);
  if (named !== undefined) return named;
  const provider = run?.provider ?? (text(execution?.provider) as keyof typeof DEFAULT_MODELS | undefined) ?? 'openai';
  return DEFAULT_MODELS[provider] ?? DEFAULT_MODELS.openai;
}

export function builtinPlan(serviceId: string, run: RunOptions): RunPlan {
  return {
    instructions: '',
    strategies: SERVICE_STRATEGIES[serviceId] ?? [],
    strategyOptions: undefined,
    execution: { strategy: 'service', serviceId },
    model: null,
    userContext: run.userContext,
    guardrails: true,
    deletePrevious: true,
    annotate: true,
    inScope: () => true,
  };
}

export function customPlan(config: Config, run: RunOptions): RunPlan {
  const execution = record(config.execution) ?? {};
  const strategy = text(execution.executionStrategy) ?? 'ai';
  const serviceId = text(execution.serviceId) ?? '';
  const gathering = record(config.contextGathering) ?? {};
  const post = record(config.postProcess) ?? {};
  const on = (stage: string) => record(post[stage])?.enabled !== false;
  const annotations = record(post.annotations);
  const scope = record(config.scope) ?? {};
  const include = patterns(scope.pageScope);
  const exclude = patterns(scope.pageScopeExclude);
  const model = strategy === 'ai' || strategy === 'service+ai' ? modelOf(config, run.aiConfig) : null;
  const plan: RunPlan = {
    instructions: text(config.instructions) ?? '',
    strategies: Array.isArray(gathering.strategies) ? gathering.strategies.filter((s): s is string => typeof s === 'string') : [],
    strategyOptions: record(gathering.strategyOptions),
    execution: { strategy, serviceId },
    model,
    userContext: run.userContext,
    guardrails: on('guardrails'),
    deletePrevious: on('deletePreviousSuggestions'),
    annotate: annotations?.enabled !== false && annotations?.strategy !== 'none',
    inScope: (url) => (include.length === 0 || include.some((re) => re.test(url))) && !exclude.some((re) => re.test(url)),
  };
  if (model !== null && providerOf(model) === undefined) {
    plan.refused = { code: 'LLM_NOT_CONFIGURED', message: `model ${model.slice(0, 100)} has no known provider prefix`, retryable: false };
  }
  return plan;
}

/** URL globs of `scope.pageScope`: `**` any characters, `*` any but `/`, `?` one character. */
function patterns(value: unknown): RegExp[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((p): p is string => typeof p === 'string')
    .map((glob) => {
      let source = '';
      for (let i = 0; i < glob.length; i++) {
        const c = glob[i]!;
        if (c === '*' && glob[i + 1] === '*') {
          source += '.*';
          i++;
        } else if (c === '*') source += '[^/]*';
        else if (c === '?') source += '.';
        else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
      }
      return new RegExp(`^${source}$`);
    });
}
