import type { TWorkflowNode } from '../../../../contract/workflows/schemas.js';
import { testsStepStatus } from './condition.js';
import type { Issues } from './errors.js';
import { edgeText, endpointText, sourceKey, type Resolved, type ResolvedEdge } from './resolve.js';

/**
 * Still the first stage: what each node's config needs, and the rules that
 * look at a node's or group's edges without following paths.
 */
export function lintNodesAndEdges(resolved: Resolved, issues: Issues): void {
  const outgoing = new Map<string, ResolvedEdge[]>();
  for (const edge of resolved.edges) {
    const key = sourceKey(edge.from);
    outgoing.set(key, [...(outgoing.get(key) ?? []), edge]);
  }
  const edgesOf = (kind: 'node' | 'group', id: string) => outgoing.get(`${kind}:${id}`) ?? [];

  for (const [nodeId, node] of resolved.nodes) {
    const at = `nodes[${resolved.nodeIndex.get(nodeId)}]`;
    const name = `node "${nodeId}" (${at})`;
    lintConfig(node, name, at, issues);
    const own = edgesOf('node', nodeId);

    if (node.type === 'human') {
      const groupId = resolved.groupOf.get(nodeId);
      const group = groupId === undefined ? [] : edgesOf('group', groupId);
      // A group member's reject path may be the group's: the collective reject, or the group's loop back-edge.
      if (![...own, ...group].some((edge) => edge.role === 'reject')) {
        issues.add(
          'human-node-requires-reject-path',
          at,
          `${name} is a human step without an outgoing on: reject edge${groupId === undefined ? '' : ` (nor has its group "${groupId}")`}; route rejections explicitly, to a terminal node if they end the run`,
        );
      }
    }

    if (node.slaMs !== undefined && own.length > 0) {
      const routesBreach = own.some(
        (edge) => edge.role === 'always' || edge.role === 'breached' || (edge.role === 'custom' && edge.when !== null && testsStepStatus(edge.when, 'breached')),
      );
      if (!routesBreach) {
        issues.add(
          'missing-breach-edge',
          at,
          `${name} has slaMs and outgoing edges, but none routes a breach; add an on: breached or on: always edge, or an on: custom edge testing step.status "breached"`,
        );
      }
    }
  }

  for (const edge of resolved.edges) {
    const at = `edges[${edge.index}]`;
    if (edge.role === 'breached') {
      const sla = edge.from.kind === 'node' && resolved.nodes.get(edge.from.id)?.slaMs !== undefined;
      if (!sla) {
        issues.add(
          'edge-breached-requires-sla',
          at,
          `${edgeText(edge)} can never fire: ${edge.from.kind === 'group' ? 'a group has no SLA of its own' : `node "${edge.from.id}" sets no slaMs`}`,
        );
      }
    }
    if (edge.role === 'exhausted' && !edgesOf(edge.from.kind, edge.from.id).some((other) => other.role === 'reject' && other.loop)) {
      issues.add('edge-exhausted-requires-loop-sibling', at, `${edgeText(edge)} has no sibling reject back-edge with "loop" from ${endpointText(edge.from)}`);
    }
    if (edge.from.kind !== 'group') continue;
    const group = resolved.groups.get(edge.from.id)!;
    if (edge.role === 'reject' && !edge.loop && group.onQuorumMet !== 'waitAll') {
      issues.add(
        'group-from-reject-requires-loop',
        at,
        `${edgeText(edge)} is a forward reject from a ${group.onQuorumMet} group, which only fans out on approval; use a waitAll group, or mark the edge with loop`,
      );
    }
    if (edge.role === 'reject' && edge.loop && group.onQuorumMet !== 'joinOnQuorum') {
      issues.add('group-from-loop-requires-joinonquorum', at, `${edgeText(edge)} is a loop back-edge from a ${group.onQuorumMet} group; a group's loop needs joinOnQuorum`);
    }
  }

  for (const [groupId, group] of resolved.groups) {
    if (group.onQuorumMet !== 'joinOnQuorum') continue;
    // The successors the group fires once on quorum: what a member's own edges lead to on approval.
    const successors = (member: string) =>
      [
        ...new Set(
          edgesOf('node', member)
            .filter((edge) => edge.role === 'approve' || edge.role === 'always' || edge.role === 'custom')
            .map((edge) => endpointText(edge.to)),
        ),
      ].sort();
    const [first, ...rest] = group.memberNodeIds;
    if (first === undefined) continue;
    const expected = successors(first);
    const differing = rest.find((member) => successors(member).join('\n') !== expected.join('\n'));
    if (differing !== undefined) {
      const list = (targets: string[]) => (targets.length > 0 ? targets.join(', ') : 'none');
      issues.add(
        'group-joinonquorum-members-must-share-successors',
        `groups[${resolved.groupIndex.get(groupId)}]`,
        `group "${groupId}" (groups[${resolved.groupIndex.get(groupId)}]) uses joinOnQuorum, but its members lead to different nodes: "${first}" to ${list(expected)}, "${differing}" to ${list(successors(differing))}`,
      );
    }
  }
}

function lintConfig(node: TWorkflowNode, name: string, at: string, issues: Issues): void {
  switch (node.type) {
    case 'agent':
      if (node.config.url === undefined && node.config.urlPath === undefined) {
        issues.add('agent-node-requires-url-or-urlpath', at, `${name} is an agent step with neither config.url nor config.urlPath`);
      }
      return;
    case 'human': {
      const { reviewers, reviewerIds } = node.config;
      if (reviewers !== undefined && reviewerIds !== undefined) {
        issues.add('human-reviewers', at, `${name} sets both config.reviewers and config.reviewerIds; use one (reviewers)`);
      } else if (reviewers === undefined && reviewerIds === undefined) {
        issues.add('human-reviewers', at, `${name} sets neither config.reviewers nor config.reviewerIds`);
      } else {
        const ids = reviewers?.map((reviewer) => reviewer.userId) ?? reviewerIds ?? [];
        const repeated = ids.find((id, index) => ids.indexOf(id) !== index);
        if (repeated !== undefined) issues.add('human-reviewers', at, `${name} lists reviewer "${repeated}" more than once; reviewer userIds must be unique`);
      }
      return;
    }
    case 'notification':
      if (node.config.userIds === undefined && node.config.recipients === undefined) {
        issues.add('notification-needs-recipients', at, `${name} is a notification step with neither config.userIds nor config.recipients`);
      }
      return;
    case 'webhook':
      return;
  }
}
