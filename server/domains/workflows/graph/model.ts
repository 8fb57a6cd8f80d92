import type { EDGE_ROLES, QUORUM_POLICIES, TCompiledGraph, TWorkflowNode } from '../../../../contract/workflows/schemas.js';
import type { Condition } from './condition.js';

/** The types compile.ts hands to the engine; compile.ts re-exports them. */

export type EdgeRole = (typeof EDGE_ROLES)[number];
export type QuorumPolicy = (typeof QUORUM_POLICIES)[number];

/** One way out of a step: an authored edge, expanded per member when it goes to a group. */
export interface RouteEdge {
  to: string;
  role: EdgeRole;
  /** approve/reject: their compiled predicates; custom: the parsed `when`; always, breached, exhausted: null. */
  when: Condition | null;
  /** Set when the authored `to` was this group. */
  toGroupId?: string;
  /** The authored edge's index in `edges`. */
  index: number;
}

export interface NormalizedGroup {
  groupId: string;
  memberNodeIds: string[];
  expectedSteps: number;
  quorum: number;
  onQuorumMet: QuorumPolicy;
  requiredNodeIds: string[];
}

export interface LoopRegion {
  loopId: string;
  from: { nodeId: string } | { groupId: string };
  /** The reject edge's `to`, started again on each pass. */
  entryNodeId: string;
  /** The nodes on a path from the entry to the source (both included), in the definition's topological order. */
  bodyNodeIds: string[];
  maxIterations: number;
  /** The sibling `on: "exhausted"` edges (expanded per member), or none: the execution fails at the cap. */
  exhaustedTo: RouteEdge[];
  /** The authored reject back-edge's index in `edges`. */
  index: number;
}

export interface CompiledWorkflow {
  /** What reads show as `compiled`. */
  view: TCompiledGraph;
  /** Nodes with no incoming forward edge, in authored order: dispatch starts these. */
  roots: string[];
  /** Per node: the forward edges authored from it (loop back-edges and exhausted edges left out); every node has an entry. */
  nodeEdges: Map<string, RouteEdge[]>;
  /** Per group: the forward edges authored from it (loop back-edges and exhausted edges left out); every group has an entry. */
  groupEdges: Map<string, RouteEdge[]>;
  /** One per reject back-edge marked with `loop`, in authored edge order. */
  loops: LoopRegion[];
  /** `node:<nodeId>` or `group:<groupId>` → the loop that source's reject restarts. */
  loopBySource: Map<string, LoopRegion>;
  groups: Map<string, NormalizedGroup>;
  /** Member nodeId → its group. */
  groupOf: Map<string, string>;
  nodes: Map<string, TWorkflowNode>;
}
