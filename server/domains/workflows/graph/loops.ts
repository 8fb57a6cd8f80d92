import type { Issues } from './errors.js';
import { forwardGraph, isLoopEdge, topologicalOrder } from './graph.js';
import type { LoopRegion, RouteEdge } from './model.js';
import { edgeText, expand, sourceKey, type Resolved, type ResolvedEdge } from './resolve.js';

/**
 * The third stage, on an acyclic forward graph: the loop regions the
 * reject back-edges marked with `loop` derive. A region's body is every
 * node on a path from the entry (the edge's `to`) to the source (the
 * rejecting node, or every member of the rejecting group); a pass ends
 * where the body is left, which must be one place, so the engine knows
 * which output the next pass gets as the previous attempt.
 */
export function deriveLoops(resolved: Resolved, issues: Issues, routeEdges: (edge: ResolvedEdge) => RouteEdge[]): LoopRegion[] {
  const graph = forwardGraph(resolved);
  const order = topologicalOrder(resolved, graph);
  const loops: LoopRegion[] = [];
  const usedIds = new Set<string>();

  for (const edge of resolved.edges) {
    if (!isLoopEdge(edge) || edge.to.kind !== 'node') continue;
    const at = `edges[${edge.index}]`;
    const entry = edge.to.id;
    const sources = expand(resolved, edge.from);
    const source = edge.from.kind === 'node' ? `"${edge.from.id}"` : `a member of group "${edge.from.id}"`;
    if (sources.includes(entry)) {
      issues.add('edge-loop-requires-back-edge', at, `${edgeText(edge)} goes back to ${source} itself; a loop goes back to an earlier node`);
      continue;
    }
    const missed = sources.filter((member) => !graph.reaches(entry, member));
    if (missed.length === sources.length) {
      issues.add('edge-loop-requires-back-edge', at, `${edgeText(edge)}: "${entry}" does not lead to ${source}, so the edge does not go back; a loop goes back to an earlier node`);
      continue;
    }
    if (missed.length > 0) {
      issues.add('edge-loop-requires-back-edge', at, `${edgeText(edge)}: "${entry}" does not lead to member "${missed[0]}" of group "${edge.from.id}"; a group's loop goes back to a node before all its members`);
      continue;
    }

    const body = order.filter((id) => graph.reaches(entry, id) && sources.some((member) => graph.reaches(id, member)));
    const inBody = new Set(body);
    const exits = body.filter((id) => graph.arcs.get(id)!.some((arc) => !inBody.has(arc.to)));
    let loopId = `loop-${edge.from.id}-${entry}`;
    for (let n = 2; usedIds.has(loopId); n += 1) loopId = `loop-${edge.from.id}-${entry}-${n}`;
    usedIds.add(loopId);
    const name = `loop "${loopId}" of ${edgeText(edge)}`;

    if (exits.length > 1) {
      const bounding = [...resolved.groups.values()].find(
        (group) => group.memberNodeIds.length === exits.length && group.memberNodeIds.every((member) => exits.includes(member)),
      );
      if (!bounding || bounding.onQuorumMet !== 'joinOnQuorum') {
        issues.add(
          'loop-body-must-have-single-terminal',
          at,
          `${name} is left from ${exits.length} nodes (${exits.join(', ')})${bounding ? `, the members of ${bounding.onQuorumMet} group "${bounding.groupId}"` : ''}; a loop body must be left from one node, or from the members of one joinOnQuorum group`,
        );
      } else if (bounding.quorum !== bounding.expectedSteps) {
        issues.add(
          'loop-group-bounded-quorum-must-equal-expected',
          at,
          `${name} ends at the members of group "${bounding.groupId}", whose quorum (${bounding.quorum}) is not its expectedSteps (${bounding.expectedSteps}); a pass must end when every member has`,
        );
      }
    }

    loops.push({
      loopId,
      from: edge.from.kind === 'node' ? { nodeId: edge.from.id } : { groupId: edge.from.id },
      entryNodeId: entry,
      bodyNodeIds: body,
      maxIterations: edge.loop!.maxIterations,
      exhaustedTo: resolved.edges
        .filter((other) => other.role === 'exhausted' && sourceKey(other.from) === sourceKey(edge.from))
        .flatMap(routeEdges),
      index: edge.index,
    });
  }

  // A node restarted by two loops would have two iteration counters; the hosted service refuses it, and so do we.
  const owner = new Map<string, LoopRegion>();
  const reported = new Set<string>();
  for (const loop of loops) {
    for (const node of loop.bodyNodeIds) {
      const other = owner.get(node);
      if (!other) {
        owner.set(node, loop);
        continue;
      }
      const pair = `${other.loopId}\n${loop.loopId}`;
      if (reported.has(pair)) continue;
      reported.add(pair);
      issues.add(
        'loop-node-in-multiple-loops',
        `edges[${loop.index}]`,
        `node "${node}" is in the body of loop "${other.loopId}" (edges[${other.index}]) and of loop "${loop.loopId}" (edges[${loop.index}]); use one back-edge, from a joinOnQuorum group of the reviewers`,
      );
    }
  }
  return loops;
}
