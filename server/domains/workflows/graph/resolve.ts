import type { TEdgeEndpoint, TWorkflowEdge, TWorkflowGroup, TWorkflowNode } from '../../../../contract/workflows/schemas.js';
import { approveCondition, ConditionError, parseCondition, rejectCondition, type Condition } from './condition.js';
import type { Issues } from './errors.js';
import type { EdgeRole, NormalizedGroup } from './model.js';

/**
 * The first stage: the definition's parts each on their own. IDs are
 * unique, edges name declared nodes and groups and keep the edge contract
 * (`when` only with custom, `loop` only on reject), groups' numbers add
 * up. What comes out is keyed by ID for the stages that follow.
 */

export type Endpoint = { kind: 'node'; id: string } | { kind: 'group'; id: string };

export interface ResolvedEdge {
  index: number;
  from: Endpoint;
  to: Endpoint;
  role: EdgeRole;
  when: Condition | null;
  loop: { maxIterations: number } | undefined;
}

export interface Resolved {
  nodes: Map<string, TWorkflowNode>;
  /** Where each node is in `nodes` (the authored order). */
  nodeIndex: Map<string, number>;
  groups: Map<string, NormalizedGroup>;
  groupIndex: Map<string, number>;
  groupOf: Map<string, string>;
  /** The edges whose endpoints resolved, in authored order. */
  edges: ResolvedEdge[];
}

/** The part of a definition compileDefinition reads; `edges` and `groups` may be absent (or null, as a stored definition reads). */
export interface DefinitionGraph {
  nodes: readonly TWorkflowNode[];
  edges?: readonly TWorkflowEdge[] | null | undefined;
  groups?: readonly TWorkflowGroup[] | null | undefined;
}

export const endpointOf = (endpoint: TEdgeEndpoint): Endpoint =>
  typeof endpoint === 'string' ? { kind: 'node', id: endpoint } : endpoint.kind === 'node' ? { kind: 'node', id: endpoint.nodeId } : { kind: 'group', id: endpoint.groupId };

export const endpointText = (endpoint: Endpoint) => (endpoint.kind === 'node' ? endpoint.id : `group ${endpoint.id}`);
export const sourceKey = (endpoint: Endpoint) => `${endpoint.kind}:${endpoint.id}`;

/** `edges[3] (human-review → agent-draft, on reject)`: how messages name an edge. */
export const edgeText = (edge: { index: number; from: Endpoint; to: Endpoint; role: EdgeRole }) =>
  `edges[${edge.index}] (${endpointText(edge.from)} → ${endpointText(edge.to)}, on ${edge.role})`;

/** The nodes an endpoint stands for: the node, or the group's members. */
export function expand(resolved: Resolved, endpoint: Endpoint): string[] {
  return endpoint.kind === 'node' ? [endpoint.id] : (resolved.groups.get(endpoint.id)?.memberNodeIds ?? []);
}

export function resolveDefinition(def: DefinitionGraph, issues: Issues): Resolved {
  const nodes = new Map<string, TWorkflowNode>();
  const nodeIndex = new Map<string, number>();
  def.nodes.forEach((node, index) => {
    const first = nodeIndex.get(node.nodeId);
    if (first !== undefined) {
      issues.add('duplicate-node-id', `nodes[${index}]`, `nodes[${index}] has the nodeId "${node.nodeId}" of nodes[${first}]`);
      return;
    }
    nodes.set(node.nodeId, node);
    nodeIndex.set(node.nodeId, index);
  });

  const groups = new Map<string, NormalizedGroup>();
  const groupIndex = new Map<string, number>();
  const groupOf = new Map<string, string>();
  (def.groups ?? []).forEach((group, index) => {
    const at = `groups[${index}]`;
    const name = `group "${group.groupId}" (${at})`;
    const first = groupIndex.get(group.groupId);
    if (first !== undefined) {
      issues.add('group-duplicate-id', at, `${at} has the groupId "${group.groupId}" of groups[${first}]`);
      return;
    }
    const members: string[] = [];
    for (const [i, member] of group.memberNodeIds.entries()) {
      if (!nodes.has(member)) issues.add('group-member-missing', at, `${name}: ${at}.memberNodeIds[${i}] names a node the definition does not declare`);
      else if (members.includes(member)) issues.add('group-member-duplicate', at, `${name} lists member "${member}" twice`);
      else {
        const other = groupOf.get(member);
        if (other !== undefined) issues.add('group-node-in-multiple-groups', at, `node "${member}" is a member of group "${other}" and of ${name}; a node belongs to at most one group`);
        else groupOf.set(member, group.groupId);
        members.push(member);
      }
    }
    const expectedSteps = group.expectedSteps ?? members.length;
    const onQuorumMet = group.onQuorumMet ?? 'waitAll';
    const required = [...new Set(group.requiredNodeIds ?? [])];
    // A group that expects more steps than it has members never completes: refused here, where the hosted service accepts it.
    if (expectedSteps < 1 || expectedSteps > group.memberNodeIds.length) {
      issues.add('group-expected-steps-invalid', at, `${name} has expectedSteps ${expectedSteps}; it must be 1 to the number of members (${group.memberNodeIds.length})`);
    } else if (group.quorum < 1 || group.quorum > expectedSteps) {
      issues.add('group-quorum-invalid', at, `${name} has quorum ${group.quorum}; it must be 1 to expectedSteps (${expectedSteps})`);
    } else if (onQuorumMet === 'cancelOnQuorum' && group.quorum >= expectedSteps) {
      issues.add(
        'group-cancelonquorum-requires-quorum-lt-expected',
        at,
        `${name} uses cancelOnQuorum with quorum ${group.quorum} and expectedSteps ${expectedSteps}; with nobody left to cancel, quorum must be below expectedSteps`,
      );
    }
    for (const node of required) {
      if (!group.memberNodeIds.includes(node)) issues.add('group-required-not-in-members', at, `${name} requires "${node}", which is not one of its memberNodeIds`);
    }
    if (required.length > group.quorum) {
      issues.add('group-required-exceeds-quorum', at, `${name} requires ${required.length} members (${required.join(', ')}) but its quorum is ${group.quorum}`);
    }
    groups.set(group.groupId, { groupId: group.groupId, memberNodeIds: members, expectedSteps, quorum: group.quorum, onQuorumMet, requiredNodeIds: required });
    groupIndex.set(group.groupId, index);
  });

  const edges: ResolvedEdge[] = [];
  (def.edges ?? []).forEach((authored, index) => {
    const at = `edges[${index}]`;
    const role: EdgeRole = authored.on ?? 'always';
    const from = endpointOf(authored.from);
    const to = endpointOf(authored.to);
    const edge = { index, from, to, role };
    let dangling = false;
    for (const [side, endpoint] of [['from', from], ['to', to]] as const) {
      const declared = endpoint.kind === 'node' ? nodes.has(endpoint.id) : groups.has(endpoint.id);
      if (!declared) {
        // The undeclared ID is not repeated: a refusal never echoes the value it refuses (it may be a secret pasted in the wrong place).
        issues.add('dangling-edge', at, `edges[${edge.index}].${side} names a ${endpoint.kind} the definition does not declare`);
        dangling = true;
      }
    }
    if (from.kind === 'group' && to.kind === 'group') {
      issues.add('edge-group-to-group-forbidden', at, `${edgeText(edge)} goes from a group to a group; one end must be a node`);
      dangling = true;
    }
    if (role === 'custom' && authored.when === undefined) issues.add('edge-custom-requires-when', at, `${edgeText(edge)} is on custom without a "when" condition`);
    if (role !== 'custom' && authored.when !== undefined) issues.add('edge-when-only-for-custom', at, `${edgeText(edge)} has a "when" condition, which only an on: custom edge takes`);
    if (authored.loop && role !== 'reject') issues.add('edge-loop-requires-reject', at, `${edgeText(edge)} has "loop", which only an on: reject back-edge takes`);
    if (authored.loop && role === 'reject' && to.kind === 'group') {
      issues.add('edge-loop-requires-back-edge', at, `${edgeText(edge)} is a loop back-edge to a group; a loop goes back to one node, its entry`);
    }
    let when: Condition | null = role === 'approve' ? approveCondition : role === 'reject' ? rejectCondition : null;
    if (role === 'custom' && authored.when !== undefined) {
      try {
        when = parseCondition(authored.when);
      } catch (error) {
        if (!(error instanceof ConditionError)) throw error;
        issues.add('condition-invalid', at, `${edgeText(edge)}: ${error.message}`);
      }
    }
    if (!dangling) edges.push({ ...edge, when, loop: authored.loop });
  });

  return { nodes, nodeIndex, groups, groupIndex, groupOf, edges };
}
