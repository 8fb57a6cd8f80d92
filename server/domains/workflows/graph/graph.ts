import type { Issues } from './errors.js';
import { edgeText, expand, type Resolved, type ResolvedEdge } from './resolve.js';

/**
 * The second stage: paths. The forward graph is every edge but the loop
 * back-edges (exhausted edges included: their targets are reached that
 * way), with group endpoints expanded to their members. It must have no
 * cycle, and every node must be on a path from a root.
 */

export interface Arc {
  to: string;
  edge: ResolvedEdge;
}

export interface ForwardGraph {
  /** Node → its arcs, for every node. */
  arcs: Map<string, Arc[]>;
  /** Nodes without an incoming arc, in authored order. */
  roots: string[];
  /** Whether `to` can be reached from `from` (a node reaches itself). */
  reaches(from: string, to: string): boolean;
}

export const isLoopEdge = (edge: ResolvedEdge) => edge.role === 'reject' && edge.loop !== undefined;

export function forwardGraph(resolved: Resolved, skip: (edge: ResolvedEdge) => boolean = () => false): ForwardGraph {
  const arcs = new Map<string, Arc[]>([...resolved.nodes.keys()].map((id) => [id, []]));
  const incoming = new Set<string>();
  for (const edge of resolved.edges) {
    if (isLoopEdge(edge) || skip(edge)) continue;
    for (const from of expand(resolved, edge.from)) {
      for (const to of expand(resolved, edge.to)) {
        arcs.get(from)!.push({ to, edge });
        incoming.add(to);
      }
    }
  }
  const reachable = new Map<string, Set<string>>();
  const reachFrom = (start: string) => {
    let seen = reachable.get(start);
    if (!seen) {
      seen = new Set([start]);
      const queue = [start];
      while (queue.length > 0) {
        for (const arc of arcs.get(queue.shift()!) ?? []) {
          if (!seen.has(arc.to)) {
            seen.add(arc.to);
            queue.push(arc.to);
          }
        }
      }
      reachable.set(start, seen);
    }
    return seen;
  };
  return {
    arcs,
    roots: [...resolved.nodes.keys()].filter((id) => !incoming.has(id)),
    reaches: (from, to) => reachFrom(from).has(to),
  };
}

/** Cycles and unreachable nodes, as issues. */
export function checkPaths(resolved: Resolved, issues: Issues): void {
  const graph = forwardGraph(resolved);

  // A reject edge back to an ancestor is a loop the author did not mark: named as such, not as a bare cycle.
  const unmarked = new Set<ResolvedEdge>();
  for (const edge of resolved.edges) {
    if (edge.role !== 'reject' || edge.loop) continue;
    const back = expand(resolved, edge.from).flatMap((from) => expand(resolved, edge.to).map((to) => [from, to] as const)).find(([from, to]) => graph.reaches(to, from));
    if (back) {
      unmarked.add(edge);
      issues.add(
        'edge-reject-cycle-requires-loop',
        `edges[${edge.index}]`,
        `${edgeText(edge)} goes back to "${back[1]}", which leads to "${back[0]}"; mark it with loop: {maxIterations} to allow a bounded revision loop`,
      );
    }
  }

  const rest = forwardGraph(resolved, (edge) => unmarked.has(edge));
  for (const cycle of findCycles(resolved, rest)) {
    const path = cycle.map((arc) => arc.to);
    const edges = [...new Set(cycle.map((arc) => `edges[${arc.edge.index}]`))];
    issues.add(
      'cycle-detected',
      edges[0]!,
      `${[path[path.length - 1]!, ...path].join(' → ')} is a cycle (${edges.join(', ')}); only a reject edge marked with loop may go back to an earlier node`,
    );
  }

  // Without the unmarked reject edges, which are already reported: a node they alone lead back to is not also unreachable.
  const reached = new Set<string>();
  for (const root of rest.roots) for (const id of resolved.nodes.keys()) if (rest.reaches(root, id)) reached.add(id);
  for (const id of resolved.nodes.keys()) {
    if (!reached.has(id)) {
      issues.add('unreachable-node', `nodes[${resolved.nodeIndex.get(id)}]`, `node "${id}" is on no path from a start node (one without incoming edges); only a cycle leads to it`);
    }
  }
}

/**
 * One cycle per strongly connected part of the graph that has one, as the
 * arcs that close it, starting from its first node in authored order.
 */
function findCycles(resolved: Resolved, graph: ForwardGraph): Arc[][] {
  const cycles: Arc[][] = [];
  const covered = new Set<string>();
  for (const start of resolved.nodes.keys()) {
    if (covered.has(start)) continue;
    // The shortest way back to `start`, if any (breadth-first keeps the message short).
    const via = new Map<string, Arc & { from: string }>();
    const queue = [start];
    let closing: (Arc & { from: string }) | undefined;
    while (queue.length > 0 && !closing) {
      const node = queue.shift()!;
      for (const arc of graph.arcs.get(node) ?? []) {
        if (arc.to === start) {
          closing = { ...arc, from: node };
          break;
        }
        if (!via.has(arc.to)) {
          via.set(arc.to, { ...arc, from: node });
          queue.push(arc.to);
        }
      }
    }
    if (!closing) continue;
    const cycle: Arc[] = [closing];
    for (let node = closing.from; node !== start; node = via.get(node)!.from) cycle.unshift(via.get(node)!);
    cycles.push(cycle);
    // Everything on a cycle with `start` is reported with it.
    for (const id of resolved.nodes.keys()) if (graph.reaches(start, id) && graph.reaches(id, start)) covered.add(id);
  }
  return cycles;
}

/** Nodes in an order where every arc goes forward; among nodes free to come next, the one authored first. Call on an acyclic graph. */
export function topologicalOrder(resolved: Resolved, graph: ForwardGraph): string[] {
  const indegree = new Map<string, number>([...resolved.nodes.keys()].map((id) => [id, 0]));
  for (const arcs of graph.arcs.values()) for (const arc of arcs) indegree.set(arc.to, indegree.get(arc.to)! + 1);
  const order: string[] = [];
  const ready = [...resolved.nodes.keys()].filter((id) => indegree.get(id) === 0);
  while (ready.length > 0) {
    ready.sort((a, b) => resolved.nodeIndex.get(a)! - resolved.nodeIndex.get(b)!);
    const node = ready.shift()!;
    order.push(node);
    for (const arc of graph.arcs.get(node)!) {
      const left = indegree.get(arc.to)! - 1;
      indegree.set(arc.to, left);
      if (left === 0) ready.push(arc.to);
    }
  }
  return order;
}
