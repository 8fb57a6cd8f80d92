import type { TCompiledGraph, TWorkflowDefinition, TWorkflowEdge, TWorkflowGroup, TWorkflowNode, TWorkflowTrigger } from '../../../../contract/workflows/schemas.js';
import { compileDefinition, type CompiledWorkflow } from '../graph/compile.js';
import type { DefinitionsRepo } from '../repos/definitions.js';

/**
 * A definition version as stored (WorkflowDefinitionVersion.body): what
 * create or update took, with its secrets sealed (the webhook config's and
 * each inbound trigger's), and the compiled view reads show.
 */
export interface StoredBody {
  name: string;
  description: string | null;
  scope: TWorkflowDefinition['scope'];
  nodes: TWorkflowNode[];
  edges: TWorkflowEdge[];
  groups: TWorkflowGroup[] | null;
  triggers: TWorkflowTrigger[] | null;
  webhookConfig: { url: string; secret: string; eventTypes?: string[] } | null;
  tags: string[] | null;
  custom: Record<string, unknown> | null;
  compiled: TCompiledGraph;
}

export interface Runtime {
  body: StoredBody;
  compiled: CompiledWorkflow;
}

/** Versions are immutable, so a compiled one is kept; the bound keeps a busy server's memory flat. */
const MAX_CACHED = 256;

/** The compiled graph of a definition version, from the database once per process and version. */
export function createRuntimes(repo: DefinitionsRepo) {
  const cache = new Map<string, Runtime>();
  return {
    async of(apiKeyId: string, definitionId: string, version: number): Promise<Runtime> {
      const key = JSON.stringify([apiKeyId, definitionId, version]);
      const hit = cache.get(key);
      if (hit !== undefined) return hit;
      const row = await repo.findVersion(apiKeyId, definitionId, version);
      if (row === null) throw new Error(`definition ${definitionId} version ${version} is gone`);
      const body = JSON.parse(row.body) as StoredBody;
      const runtime: Runtime = { body, compiled: compileDefinition({ nodes: body.nodes, edges: body.edges, groups: body.groups ?? [] }) };
      if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
      cache.set(key, runtime);
      return runtime;
    },
    /** Purged definitions' versions must not be served from memory. */
    forget(apiKeyId: string, definitionId: string): void {
      const prefix = JSON.stringify([apiKeyId, definitionId]).slice(0, -1);
      for (const key of cache.keys()) if (key.startsWith(prefix)) cache.delete(key);
    },
  };
}

export type Runtimes = ReturnType<typeof createRuntimes>;

/** Master-key rotation: the body's sealed leaves (the webhook config's secret, each inbound trigger's). */
export function resealBody(stored: string, reseal: (sealed: string) => string): string {
  const body = JSON.parse(stored) as StoredBody;
  if (body.webhookConfig !== null) body.webhookConfig.secret = reseal(body.webhookConfig.secret);
  for (const trigger of body.triggers ?? []) {
    if (trigger.inboundWebhook.secret !== undefined) trigger.inboundWebhook.secret = reseal(trigger.inboundWebhook.secret);
  }
  return JSON.stringify(body);
}
