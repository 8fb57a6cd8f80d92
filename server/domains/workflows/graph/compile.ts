import type { TCompiledGraph, TWorkflowNode } from '../../../../contract/workflows/schemas.js';
import { Issues } from './errors.js';
import { checkPaths, forwardGraph, isLoopEdge } from './graph.js';
import { lintNodesAndEdges } from './lint.js';
import { deriveLoops } from './loops.js';
import type { CompiledWorkflow, LoopRegion, RouteEdge } from './model.js';
import { expand, resolveDefinition, sourceKey, type DefinitionGraph, type Resolved, type ResolvedEdge } from './resolve.js';

export type { CompiledWorkflow, EdgeRole, LoopRegion, NormalizedGroup, QuorumPolicy, RouteEdge } from './model.js';
export { GraphError, GRAPH_RULES, type GraphIssue, type GraphRule } from './errors.js';
export type { DefinitionGraph } from './resolve.js';

/**
 * Checks a definition's graph and compiles it into what the engine walks
 * and what reads show as `compiled`. Pure: the same definition always
 * gives the same result, so a stored definition can be compiled again
 * instead of storing the result. Throws GraphError.
 *
 * The checks run in three stages, each only when the one before found
 * nothing (graph.ts and loops.ts need resolved, unique IDs and an acyclic
 * graph): the parts on their own (resolve.ts, lint.ts), then paths
 * (cycles, reachability), then loop regions.
 */
export function compileDefinition(def: DefinitionGraph): CompiledWorkflow {
  const issues = new Issues();
  const resolved = resolveDefinition(def, issues);
  lintNodesAndEdges(resolved, issues);
  issues.check();
  checkPaths(resolved, issues);
  issues.check();
  const routeEdges = (edge: ResolvedEdge) => routesOf(resolved, edge);
  const loops = deriveLoops(resolved, issues, routeEdges);
  issues.check();

  const nodeEdges = new Map<string, RouteEdge[]>([...resolved.nodes.keys()].map((id) => [id, []]));
  const groupEdges = new Map<string, RouteEdge[]>([...resolved.groups.keys()].map((id) => [id, []]));
  for (const edge of resolved.edges) {
    if (isLoopEdge(edge) || edge.role === 'exhausted') continue;
    (edge.from.kind === 'node' ? nodeEdges : groupEdges).get(edge.from.id)!.push(...routeEdges(edge));
  }

  return {
    view: { forwardEdges: forwardEdgesView(resolved), loops: loops.map(loopView) },
    roots: forwardGraph(resolved).roots,
    nodeEdges,
    groupEdges,
    loops,
    loopBySource: new Map(loops.map((loop) => [sourceKey('nodeId' in loop.from ? { kind: 'node', id: loop.from.nodeId } : { kind: 'group', id: loop.from.groupId }), loop])),
    groups: resolved.groups,
    groupOf: resolved.groupOf,
    nodes: resolved.nodes,
  };
}

/** The agents a definition's nodes run, each once, in authored order (the service checks that they exist). */
export function agentIdsOf(nodes: readonly TWorkflowNode[]): string[] {
  return [...new Set(nodes.flatMap((node) => (node.type === 'agent' ? [node.config.agentId] : [])))];
}

function routesOf(resolved: Resolved, edge: ResolvedEdge): RouteEdge[] {
  return expand(resolved, edge.to).map((to) => ({
    to,
    role: edge.role,
    when: edge.when,
    ...(edge.to.kind === 'group' ? { toGroupId: edge.to.id } : {}),
    index: edge.index,
  }));
}

/** Every edge but the loop back-edges (compiled.loops shows those), group ends expanded per member, in authored order. */
function forwardEdgesView(resolved: Resolved): TCompiledGraph['forwardEdges'] {
  return resolved.edges
    .filter((edge) => !isLoopEdge(edge))
    .flatMap((edge) =>
      expand(resolved, edge.from).flatMap((from) =>
        expand(resolved, edge.to).map((to) => ({
          from,
          to,
          role: edge.role,
          when: edge.when,
          ...(edge.from.kind === 'group' ? { fromGroupId: edge.from.id } : {}),
          ...(edge.to.kind === 'group' ? { toGroupId: edge.to.id } : {}),
        })),
      ),
    );
}

function loopView(loop: LoopRegion): TCompiledGraph['loops'][number] {
  const first = loop.exhaustedTo[0];
  return {
    loopId: loop.loopId,
    ...('nodeId' in loop.from ? { from: loop.from.nodeId } : { from: loop.from.groupId, fromGroupId: loop.from.groupId }),
    entryNodeId: loop.entryNodeId,
    bodyNodeIds: [...loop.bodyNodeIds],
    maxIterations: loop.maxIterations,
    // The view has room for one target; with several exhausted edges it names the first, and forwardEdges lists them all.
    onExhausted: first ? { routeToNodeId: first.to } : null,
  };
}
