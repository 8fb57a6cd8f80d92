import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ZCompiledGraph, ZWorkflowEdge, ZWorkflowGroup, ZWorkflowNode } from '../../../contract/workflows/schemas.js';
import { agentIdsOf, compileDefinition, GRAPH_RULES, GraphError, type CompiledWorkflow, type GraphRule } from '../../../server/domains/workflows/graph/compile.js';
import { approveCondition, rejectCondition } from '../../../server/domains/workflows/graph/condition.js';

/** A definition's graph as the contract parses it, so every example here is one the API would accept. */
const def = (input: { nodes: unknown[]; edges?: unknown[]; groups?: unknown[] }) =>
  z
    .object({ nodes: z.array(ZWorkflowNode), edges: z.array(ZWorkflowEdge).default([]), groups: z.array(ZWorkflowGroup).optional() })
    .strict()
    .parse(input);

const agent = (nodeId: string, extra: Record<string, unknown> = {}) => ({ nodeId, type: 'agent', config: { agentId: `${nodeId}-v1`, urlPath: 'documentUrl' }, ...extra });
const human = (nodeId: string, extra: Record<string, unknown> = {}) => ({
  nodeId,
  type: 'human',
  config: { reviewers: [{ userId: `u_${nodeId}`, mandatory: true }] },
  ...extra,
});
const notify = (nodeId: string) => ({ nodeId, type: 'notification', config: { userIds: ['u_team'], bodyTemplate: 'Decision: {{input.decision}}' } });
const group = (groupId: string) => ({ kind: 'group', groupId });

const compile = (input: Parameters<typeof def>[0]) => compileDefinition(def(input));

/** The GraphError a definition gets. */
function refusal(input: Parameters<typeof def>[0]): GraphError {
  try {
    compile(input);
  } catch (error) {
    expect(error).toBeInstanceOf(GraphError);
    return error as GraphError;
  }
  throw new Error('the definition was accepted');
}

const approveWhen = { op: 'eq', args: [{ var: 'output.decision' }, 'approve'] };
const rejectWhen = { op: 'eq', args: [{ var: 'output.decision' }, 'reject'] };

/** What reads show must be what the contract's schema keeps: parsing it changes nothing. */
const viewOf = (compiled: CompiledWorkflow) => {
  expect(ZCompiledGraph.parse(JSON.parse(JSON.stringify(compiled.view)))).toEqual(compiled.view);
  return JSON.parse(JSON.stringify(compiled.view)) as unknown;
};

describe('the hosted documentation\'s examples compile to the views it shows', () => {
  it('marketing-copy-approval (Get Definition)', () => {
    const compiled = compile({
      nodes: [
        { nodeId: 'agent-draft', type: 'agent', config: { agentId: 'copy-agent-v1', urlPath: 'documentUrl' } },
        { nodeId: 'human-review', type: 'human', config: { reviewers: [{ userId: 'u_reviewer_01', mandatory: true }] } },
        { nodeId: 'agent-publish', type: 'agent', config: { agentId: 'publish-agent-v1', urlPath: 'documentUrl' } },
        { nodeId: 'agent-rework', type: 'agent', config: { agentId: 'rework-agent-v1', urlPath: 'documentUrl' } },
      ],
      edges: [
        { from: 'agent-draft', to: 'human-review' },
        { from: 'human-review', to: 'agent-publish', on: 'approve' },
        { from: 'human-review', to: 'agent-rework', on: 'reject' },
      ],
    });
    expect(viewOf(compiled)).toEqual({
      forwardEdges: [
        { from: 'agent-draft', to: 'human-review', role: 'always', when: null },
        { from: 'human-review', to: 'agent-publish', role: 'approve', when: { op: 'eq', args: [{ var: 'output.decision' }, 'approve'] } },
        { from: 'human-review', to: 'agent-rework', role: 'reject', when: { op: 'eq', args: [{ var: 'output.decision' }, 'reject'] } },
      ],
      loops: [],
    });
    expect(compiled.roots).toEqual(['agent-draft']);
    expect(compiled.nodeEdges.get('agent-draft')).toEqual([{ to: 'human-review', role: 'always', when: null, index: 0 }]);
    expect(compiled.nodeEdges.get('human-review')).toEqual([
      { to: 'agent-publish', role: 'approve', when: approveCondition, index: 1 },
      { to: 'agent-rework', role: 'reject', when: rejectCondition, index: 2 },
    ]);
    expect(compiled.nodeEdges.get('agent-publish')).toEqual([]);
    expect(compiled.loops).toEqual([]);
    expect(compiled.groups.size).toBe(0);
    expect([...compiled.nodes.keys()]).toEqual(['agent-draft', 'human-review', 'agent-publish', 'agent-rework']);
    expect(agentIdsOf([...compiled.nodes.values()])).toEqual(['copy-agent-v1', 'publish-agent-v1', 'rework-agent-v1']);
  });

  it('a reject back-edge with loop and its exhausted sibling (Loop regions)', () => {
    const compiled = compile({
      nodes: [agent('agent-draft'), human('human-legal'), agent('agent-publish'), human('human-escalate'), notify('notify-author')],
      edges: [
        { from: 'agent-draft', to: 'human-legal' },
        { from: 'human-legal', to: 'agent-publish', on: 'approve' },
        { from: 'human-legal', to: 'agent-draft', on: 'reject', loop: { maxIterations: 5 } },
        { from: 'human-legal', to: 'human-escalate', on: 'exhausted' },
        { from: 'human-escalate', to: 'notify-author', on: 'reject' },
      ],
    });
    expect(viewOf(compiled)).toEqual({
      forwardEdges: [
        { from: 'agent-draft', to: 'human-legal', role: 'always', when: null },
        { from: 'human-legal', to: 'agent-publish', role: 'approve', when: approveWhen },
        { from: 'human-legal', to: 'human-escalate', role: 'exhausted', when: null },
        { from: 'human-escalate', to: 'notify-author', role: 'reject', when: rejectWhen },
      ],
      loops: [
        {
          loopId: 'loop-human-legal-agent-draft',
          from: 'human-legal',
          entryNodeId: 'agent-draft',
          bodyNodeIds: ['agent-draft', 'human-legal'],
          maxIterations: 5,
          onExhausted: { routeToNodeId: 'human-escalate' },
        },
      ],
    });
    // The loop's entry is still where dispatch starts; the exhausted target is not a root.
    expect(compiled.roots).toEqual(['agent-draft']);
    // The back-edge and the exhausted edge are the loop's, not the node's routes.
    expect(compiled.nodeEdges.get('human-legal')).toEqual([{ to: 'agent-publish', role: 'approve', when: approveCondition, index: 1 }]);
    const loop = compiled.loopBySource.get('node:human-legal');
    expect(loop).toEqual({
      loopId: 'loop-human-legal-agent-draft',
      from: { nodeId: 'human-legal' },
      entryNodeId: 'agent-draft',
      bodyNodeIds: ['agent-draft', 'human-legal'],
      maxIterations: 5,
      exhaustedTo: [{ to: 'human-escalate', role: 'exhausted', when: null, index: 3 }],
      index: 2,
    });
    expect(compiled.loops).toEqual([loop]);
  });

  it('A realistic workflow (Setup): a joinOnQuorum group with a group-source loop', () => {
    const compiled = compile({
      nodes: [agent('agent-draft'), human('human-legal'), human('human-brand'), agent('agent-publish')],
      edges: [
        { from: 'agent-draft', to: 'human-legal' },
        { from: 'agent-draft', to: 'human-brand' },
        { from: 'human-legal', to: 'agent-publish' },
        { from: 'human-brand', to: 'agent-publish' },
        { from: group('parallel-review'), to: 'agent-draft', on: 'reject', loop: { maxIterations: 3 } },
      ],
      groups: [{ groupId: 'parallel-review', memberNodeIds: ['human-legal', 'human-brand'], expectedSteps: 2, quorum: 2, onQuorumMet: 'joinOnQuorum' }],
    });
    expect(viewOf(compiled)).toEqual({
      forwardEdges: [
        { from: 'agent-draft', to: 'human-legal', role: 'always', when: null },
        { from: 'agent-draft', to: 'human-brand', role: 'always', when: null },
        { from: 'human-legal', to: 'agent-publish', role: 'always', when: null },
        { from: 'human-brand', to: 'agent-publish', role: 'always', when: null },
      ],
      loops: [
        {
          loopId: 'loop-parallel-review-agent-draft',
          from: 'parallel-review',
          fromGroupId: 'parallel-review',
          entryNodeId: 'agent-draft',
          bodyNodeIds: ['agent-draft', 'human-legal', 'human-brand'],
          maxIterations: 3,
          onExhausted: null,
        },
      ],
    });
    expect(compiled.groups.get('parallel-review')).toEqual({
      groupId: 'parallel-review',
      memberNodeIds: ['human-legal', 'human-brand'],
      expectedSteps: 2,
      quorum: 2,
      onQuorumMet: 'joinOnQuorum',
      requiredNodeIds: [],
    });
    expect(compiled.groupOf).toEqual(new Map([['human-legal', 'parallel-review'], ['human-brand', 'parallel-review']]));
    expect(compiled.groupEdges.get('parallel-review')).toEqual([]);
    expect(compiled.loopBySource.get('group:parallel-review')?.loopId).toBe('loop-parallel-review-agent-draft');
    expect(compiled.loopBySource.has('node:human-legal')).toBe(false);
  });

  it('Rewind the whole stage (Patterns): group-source approve, reject loop and exhausted, an edge into the group', () => {
    const compiled = compile({
      nodes: [agent('agent-draft'), human('human-legal'), human('human-brand'), human('human-finance'), agent('agent-publish'), human('human-cco'), notify('notify-stop')],
      edges: [
        { from: 'agent-draft', to: group('compliance-review') },
        { from: group('compliance-review'), to: 'agent-publish', on: 'approve' },
        { from: group('compliance-review'), to: 'agent-draft', on: 'reject', loop: { maxIterations: 3 } },
        { from: group('compliance-review'), to: 'human-cco', on: 'exhausted' },
        { from: 'human-cco', to: 'notify-stop', on: 'reject' },
      ],
      groups: [{ groupId: 'compliance-review', memberNodeIds: ['human-legal', 'human-brand', 'human-finance'], expectedSteps: 3, quorum: 3, onQuorumMet: 'joinOnQuorum' }],
    });
    const members = ['human-legal', 'human-brand', 'human-finance'];
    expect(viewOf(compiled)).toEqual({
      forwardEdges: [
        ...members.map((to) => ({ from: 'agent-draft', to, role: 'always', when: null, toGroupId: 'compliance-review' })),
        ...members.map((from) => ({ from, to: 'agent-publish', role: 'approve', when: approveWhen, fromGroupId: 'compliance-review' })),
        ...members.map((from) => ({ from, to: 'human-cco', role: 'exhausted', when: null, fromGroupId: 'compliance-review' })),
        { from: 'human-cco', to: 'notify-stop', role: 'reject', when: rejectWhen },
      ],
      loops: [
        {
          loopId: 'loop-compliance-review-agent-draft',
          from: 'compliance-review',
          fromGroupId: 'compliance-review',
          entryNodeId: 'agent-draft',
          bodyNodeIds: ['agent-draft', ...members],
          maxIterations: 3,
          onExhausted: { routeToNodeId: 'human-cco' },
        },
      ],
    });
    expect(compiled.roots).toEqual(['agent-draft']);
    expect(compiled.nodeEdges.get('agent-draft')).toEqual(members.map((to) => ({ to, role: 'always', when: null, toGroupId: 'compliance-review', index: 0 })));
    expect(compiled.nodeEdges.get('human-legal')).toEqual([]);
    expect(compiled.groupEdges.get('compliance-review')).toEqual([{ to: 'agent-publish', role: 'approve', when: approveCondition, index: 1 }]);
    expect(compiled.loopBySource.get('group:compliance-review')?.exhaustedTo).toEqual([{ to: 'human-cco', role: 'exhausted', when: null, index: 3 }]);
  });
});

describe('parallel groups, each onQuorumMet', () => {
  const reviewers = ['human-legal', 'human-brand', 'human-finance'];

  it('waitAll as an edge source: one collective approve and reject branch', () => {
    const compiled = compile({
      nodes: [agent('agent-draft'), human('human-legal'), human('human-brand'), agent('agent-publish'), agent('agent-rework')],
      edges: [
        { from: 'agent-draft', to: { kind: 'group', groupId: 'parallel-review' } },
        { from: group('parallel-review'), to: 'agent-publish', on: 'approve' },
        { from: group('parallel-review'), to: 'agent-rework', on: 'reject' },
      ],
      groups: [{ groupId: 'parallel-review', memberNodeIds: ['human-legal', 'human-brand'], expectedSteps: 2, quorum: 2, onQuorumMet: 'waitAll' }],
    });
    expect(viewOf(compiled)).toEqual({
      forwardEdges: [
        { from: 'agent-draft', to: 'human-legal', role: 'always', when: null, toGroupId: 'parallel-review' },
        { from: 'agent-draft', to: 'human-brand', role: 'always', when: null, toGroupId: 'parallel-review' },
        { from: 'human-legal', to: 'agent-publish', role: 'approve', when: approveWhen, fromGroupId: 'parallel-review' },
        { from: 'human-brand', to: 'agent-publish', role: 'approve', when: approveWhen, fromGroupId: 'parallel-review' },
        { from: 'human-legal', to: 'agent-rework', role: 'reject', when: rejectWhen, fromGroupId: 'parallel-review' },
        { from: 'human-brand', to: 'agent-rework', role: 'reject', when: rejectWhen, fromGroupId: 'parallel-review' },
      ],
      loops: [],
    });
    expect(compiled.groupEdges.get('parallel-review')).toEqual([
      { to: 'agent-publish', role: 'approve', when: approveCondition, index: 1 },
      { to: 'agent-rework', role: 'reject', when: rejectCondition, index: 2 },
    ]);
    // Defaults: waitAll, expectedSteps the member count, no required members.
    const defaults = compile({
      nodes: [human('a'), human('b'), notify('n')],
      edges: [{ from: group('g'), to: 'n', on: 'reject' }],
      groups: [{ groupId: 'g', memberNodeIds: ['a', 'b'], quorum: 1 }],
    });
    expect(defaults.groups.get('g')).toEqual({ groupId: 'g', memberNodeIds: ['a', 'b'], expectedSteps: 2, quorum: 1, onQuorumMet: 'waitAll', requiredNodeIds: [] });
    expect(defaults.roots).toEqual(['a', 'b']);
  });

  it('cancelOnQuorum: members keep their own edges; as a source, one approve successor', () => {
    const compiled = compile({
      nodes: [agent('agent-draft'), ...reviewers.map((id) => human(id)), agent('agent-publish'), notify('notify-reject')],
      edges: [
        { from: 'agent-draft', to: group('approvers') },
        ...reviewers.map((id) => ({ from: id, to: 'notify-reject', on: 'reject' })),
        { from: group('approvers'), to: 'agent-publish', on: 'approve' },
      ],
      groups: [{ groupId: 'approvers', memberNodeIds: reviewers, expectedSteps: 3, quorum: 2, onQuorumMet: 'cancelOnQuorum', requiredNodeIds: ['human-legal'] }],
    });
    expect(viewOf(compiled)).toMatchObject({ loops: [] });
    expect(compiled.view.forwardEdges).toHaveLength(3 + 3 + 3);
    expect(compiled.nodeEdges.get('human-brand')).toEqual([{ to: 'notify-reject', role: 'reject', when: rejectCondition, index: 2 }]);
    expect(compiled.groupEdges.get('approvers')).toEqual([{ to: 'agent-publish', role: 'approve', when: approveCondition, index: 4 }]);
    expect(compiled.groups.get('approvers')).toMatchObject({ onQuorumMet: 'cancelOnQuorum', quorum: 2, expectedSteps: 3, requiredNodeIds: ['human-legal'] });
  });

  it('joinOnQuorum: members share their successors', () => {
    const compiled = compile({
      nodes: [agent('agent-draft'), ...reviewers.map((id) => human(id)), agent('agent-publish'), notify('notify-reject')],
      edges: [
        ...reviewers.map((id) => ({ from: 'agent-draft', to: id })),
        ...reviewers.map((id) => ({ from: id, to: 'agent-publish', on: 'approve' })),
        ...reviewers.map((id) => ({ from: id, to: 'notify-reject', on: 'reject' })),
      ],
      groups: [{ groupId: 'approvers', memberNodeIds: reviewers, quorum: 2, onQuorumMet: 'joinOnQuorum' }],
    });
    expect(viewOf(compiled)).toMatchObject({ loops: [] });
    expect(compiled.view.forwardEdges.filter((edge) => edge.to === 'agent-publish')).toEqual(
      reviewers.map((from) => ({ from, to: 'agent-publish', role: 'approve', when: approveWhen })),
    );
    expect(compiled.groups.get('approvers')).toMatchObject({ onQuorumMet: 'joinOnQuorum', quorum: 2, expectedSteps: 3 });
    expect(compiled.groupOf.get('human-finance')).toBe('approvers');
  });
});

describe('what we accept beyond the hosted examples', () => {
  it('on: breached from a node with slaMs; a custom edge testing step.status "breached" routes a breach too', () => {
    const compiled = compile({
      nodes: [human('review', { slaMs: 3_600_000 }), agent('publish'), notify('escalate'), human('second', { slaMs: 60_000 }), notify('late')],
      edges: [
        { from: 'review', to: 'publish', on: 'approve' },
        { from: 'review', to: 'second', on: 'reject' },
        { from: 'review', to: 'escalate', on: 'breached' },
        { from: 'second', to: 'escalate', on: 'reject' },
        { from: 'second', to: 'late', on: 'custom', when: '{"op":"eq","args":[{"var":"step.status"},"breached"]}' },
      ],
    });
    expect(compiled.view.forwardEdges[2]).toEqual({ from: 'review', to: 'escalate', role: 'breached', when: null });
    expect(compiled.view.forwardEdges[4]).toEqual({ from: 'second', to: 'late', role: 'custom', when: { op: 'eq', args: [{ var: 'step.status' }, 'breached'] } });
    // A terminal node with an SLA needs no breach edge: a breach fails the execution.
    expect(() => compile({ nodes: [agent('a', { slaMs: 5000 })] })).not.toThrow();
  });

  it('a human node without a mandatory reviewer (the first approval decides), and the older reviewerIds', () => {
    expect(() =>
      compile({
        nodes: [
          { nodeId: 'h', type: 'human', config: { reviewers: [{ userId: 'u1' }, { userId: 'u2', mandatory: false }] } },
          { nodeId: 'h2', type: 'human', config: { reviewerIds: ['u1', 'u2'] } },
          notify('n'),
        ],
        edges: [
          { from: 'h', to: 'h2', on: 'approve' },
          { from: 'h', to: 'n', on: 'reject' },
          { from: 'h2', to: 'n', on: 'reject' },
        ],
      }),
    ).not.toThrow();
  });

  it('a custom edge keeps its parsed condition; IDs that are Object.prototype names are plain keys', () => {
    const compiled = compile({
      nodes: [agent('constructor'), agent('toString'), agent('hasOwnProperty')],
      edges: [
        { from: 'constructor', to: 'toString', on: 'custom', when: '{"op":"gt","args":[{"var":"output.score"},0.8]}' },
        { from: 'constructor', to: 'hasOwnProperty', on: 'custom', when: '{"op":"not","args":[{"op":"gt","args":[{"var":"output.score"},0.8]}]}' },
      ],
    });
    expect(compiled.roots).toEqual(['constructor']);
    expect(compiled.nodeEdges.get('constructor')?.[0]).toEqual({ to: 'toString', role: 'custom', when: { op: 'gt', args: [{ var: 'output.score' }, 0.8] }, index: 0 });
    expect(compiled.nodeEdges.get('toString')).toEqual([]);
  });

  it('several roots, in authored order; nodes with no edges at all; edges and groups absent or null', () => {
    const compiled = compile({ nodes: [agent('b'), agent('a'), agent('c'), agent('lonely')], edges: [{ from: 'a', to: 'c' }, { from: 'b', to: 'c' }] });
    expect(compiled.roots).toEqual(['b', 'a', 'lonely']);
    const bare = compileDefinition({ nodes: def({ nodes: [agent('only')] }).nodes, edges: null, groups: null });
    expect(bare.view).toEqual({ forwardEdges: [], loops: [] });
    expect(bare.roots).toEqual(['only']);
    expect(compileDefinition({ nodes: [...bare.nodes.values()] }).roots).toEqual(['only']);
  });

  it('two exhausted edges from one loop: both are routes, the view names the first', () => {
    const compiled = compile({
      nodes: [agent('draft'), human('review'), notify('tell-author'), notify('tell-lead')],
      edges: [
        { from: 'draft', to: 'review' },
        { from: 'review', to: 'draft', on: 'reject', loop: { maxIterations: 2 } },
        { from: 'review', to: 'tell-author', on: 'exhausted' },
        { from: 'review', to: 'tell-lead', on: 'exhausted' },
      ],
    });
    expect(compiled.view.loops[0]?.onExhausted).toEqual({ routeToNodeId: 'tell-author' });
    expect(compiled.loops[0]?.exhaustedTo.map((edge) => edge.to)).toEqual(['tell-author', 'tell-lead']);
  });

  it('a node-source loop whose pass ends at the members of a joinOnQuorum group with quorum = expectedSteps', () => {
    const compiled = compile({
      nodes: [agent('draft'), agent('a'), agent('b'), agent('publish'), human('check')],
      edges: [
        { from: 'draft', to: group('g') },
        { from: 'a', to: 'publish' },
        { from: 'b', to: 'publish' },
        { from: 'a', to: 'check' },
        { from: 'b', to: 'check' },
        { from: 'check', to: 'draft', on: 'reject', loop: { maxIterations: 2 } },
      ],
      groups: [{ groupId: 'g', memberNodeIds: ['a', 'b'], quorum: 2, onQuorumMet: 'joinOnQuorum' }],
    });
    expect(compiled.view.loops).toEqual([
      { loopId: 'loop-check-draft', from: 'check', entryNodeId: 'draft', bodyNodeIds: ['draft', 'a', 'b', 'check'], maxIterations: 2, onExhausted: null },
    ]);
  });
});

/** For each rule: a minimal definition that breaks it, and what the message must name. */
const BROKEN: Record<GraphRule, { definition: Parameters<typeof def>[0]; names: string[] }> = {
  'duplicate-node-id': { definition: { nodes: [agent('a'), agent('a')] }, names: ['nodes[1]', '"a"', 'nodes[0]'] },
  'dangling-edge': { definition: { nodes: [agent('a')], edges: [{ from: 'a', to: 'ghost' }] }, names: ['edges[0].to', 'names a node'] },
  'cycle-detected': {
    definition: { nodes: [agent('r'), agent('a'), agent('b')], edges: [{ from: 'r', to: 'a' }, { from: 'a', to: 'b' }, { from: 'b', to: 'a', on: 'approve' }] },
    names: ['a → b → a', 'edges[1]', 'edges[2]'],
  },
  'unreachable-node': {
    definition: { nodes: [agent('r'), agent('a'), agent('b')], edges: [{ from: 'a', to: 'b' }, { from: 'b', to: 'a' }] },
    names: ['node "a"'],
  },
  'missing-breach-edge': {
    definition: { nodes: [human('human-review', { slaMs: 86_400_000 }), notify('rework')], edges: [{ from: 'human-review', to: 'rework', on: 'reject' }] },
    names: ['node "human-review"'],
  },
  'agent-node-requires-url-or-urlpath': { definition: { nodes: [{ nodeId: 'scan', type: 'agent', config: { agentId: 'broken-links' } }] }, names: ['node "scan"'] },
  'notification-needs-recipients': { definition: { nodes: [{ nodeId: 'n', type: 'notification', config: { bodyTemplate: 'x' } }] }, names: ['node "n"'] },
  'human-reviewers': {
    definition: { nodes: [{ nodeId: 'h', type: 'human', config: { reviewers: [{ userId: 'u1' }], reviewerIds: ['u1'] } }, notify('n')], edges: [{ from: 'h', to: 'n', on: 'reject' }] },
    names: ['node "h"', 'both'],
  },
  'human-node-requires-reject-path': { definition: { nodes: [human('human-final-approver')] }, names: ['node "human-final-approver"'] },
  'group-duplicate-id': {
    definition: { nodes: [agent('a'), agent('b')], groups: [{ groupId: 'g', memberNodeIds: ['a'], quorum: 1 }, { groupId: 'g', memberNodeIds: ['b'], quorum: 1 }] },
    names: ['groups[1]', '"g"', 'groups[0]'],
  },
  'group-member-missing': { definition: { nodes: [agent('a')], groups: [{ groupId: 'g', memberNodeIds: ['a', 'ghost'], quorum: 1 }] }, names: ['group "g"', 'groups[0].memberNodeIds[1]'] },
  'group-member-duplicate': { definition: { nodes: [agent('a')], groups: [{ groupId: 'g', memberNodeIds: ['a', 'a'], quorum: 1, expectedSteps: 1 }] }, names: ['group "g"', '"a"'] },
  'group-expected-steps-invalid': { definition: { nodes: [agent('a'), agent('b')], groups: [{ groupId: 'g', memberNodeIds: ['a', 'b'], expectedSteps: 3, quorum: 1 }] }, names: ['group "g"', 'expectedSteps 3'] },
  'group-quorum-invalid': { definition: { nodes: [agent('a'), agent('b')], groups: [{ groupId: 'g', memberNodeIds: ['a', 'b'], expectedSteps: 2, quorum: 3 }] }, names: ['group "g"', 'quorum 3'] },
  'group-required-not-in-members': {
    definition: { nodes: [agent('a'), agent('b'), agent('c')], groups: [{ groupId: 'g', memberNodeIds: ['a', 'b'], quorum: 1, requiredNodeIds: ['c'] }] },
    names: ['group "g"', '"c"'],
  },
  'group-required-exceeds-quorum': {
    definition: { nodes: [agent('a'), agent('b')], groups: [{ groupId: 'g', memberNodeIds: ['a', 'b'], quorum: 1, requiredNodeIds: ['a', 'b'] }] },
    names: ['group "g"', 'a, b'],
  },
  'group-node-in-multiple-groups': {
    definition: { nodes: [agent('a'), agent('b')], groups: [{ groupId: 'g1', memberNodeIds: ['a', 'b'], quorum: 1 }, { groupId: 'g2', memberNodeIds: ['a'], quorum: 1 }] },
    names: ['node "a"', '"g1"', 'group "g2"'],
  },
  'group-cancelonquorum-requires-quorum-lt-expected': {
    definition: { nodes: [agent('a'), agent('b')], groups: [{ groupId: 'g', memberNodeIds: ['a', 'b'], quorum: 2, onQuorumMet: 'cancelOnQuorum' }] },
    names: ['group "g"', 'quorum 2'],
  },
  'group-joinonquorum-members-must-share-successors': {
    definition: {
      nodes: [agent('a'), agent('b'), agent('x'), agent('y')],
      edges: [{ from: 'a', to: 'x' }, { from: 'b', to: 'y' }],
      groups: [{ groupId: 'g', memberNodeIds: ['a', 'b'], quorum: 2, onQuorumMet: 'joinOnQuorum' }],
    },
    names: ['group "g"', '"a" to x', '"b" to y'],
  },
  'group-from-reject-requires-loop': {
    definition: {
      nodes: [agent('a'), agent('b'), agent('c'), agent('n')],
      edges: [{ from: group('g'), to: 'n', on: 'reject' }],
      groups: [{ groupId: 'g', memberNodeIds: ['a', 'b', 'c'], quorum: 2, onQuorumMet: 'cancelOnQuorum' }],
    },
    names: ['edges[0]', 'group g → n', 'cancelOnQuorum'],
  },
  'group-from-loop-requires-joinonquorum': {
    definition: {
      nodes: [agent('start'), agent('a'), agent('b')],
      edges: [{ from: 'start', to: group('g') }, { from: group('g'), to: 'start', on: 'reject', loop: { maxIterations: 2 } }],
      groups: [{ groupId: 'g', memberNodeIds: ['a', 'b'], quorum: 2 }],
    },
    names: ['edges[1]', 'waitAll'],
  },
  'edge-group-to-group-forbidden': {
    definition: {
      nodes: [agent('a'), agent('b')],
      edges: [{ from: group('g1'), to: group('g2') }],
      groups: [{ groupId: 'g1', memberNodeIds: ['a'], quorum: 1 }, { groupId: 'g2', memberNodeIds: ['b'], quorum: 1 }],
    },
    names: ['edges[0]', 'group g1 → group g2'],
  },
  'edge-custom-requires-when': { definition: { nodes: [agent('a'), agent('b')], edges: [{ from: 'a', to: 'b', on: 'custom' }] }, names: ['edges[0] (a → b, on custom)'] },
  'edge-when-only-for-custom': {
    definition: { nodes: [agent('a'), agent('b')], edges: [{ from: 'a', to: 'b', on: 'approve', when: '{"op":"eq","args":[1,1]}' }] },
    names: ['edges[0] (a → b, on approve)'],
  },
  'condition-invalid': {
    definition: { nodes: [agent('x'), agent('y')], edges: [{ from: 'x', to: 'y', on: 'custom', when: "output.decision == 'approve'" }] },
    names: ['edges[0] (x → y, on custom)', 'not valid JSON'],
  },
  'edge-breached-requires-sla': { definition: { nodes: [agent('a'), agent('b')], edges: [{ from: 'a', to: 'b', on: 'breached' }] }, names: ['edges[0]', '"a" sets no slaMs'] },
  'edge-loop-requires-reject': {
    definition: { nodes: [agent('a'), agent('b')], edges: [{ from: 'a', to: 'b', on: 'approve', loop: { maxIterations: 2 } }] },
    names: ['edges[0] (a → b, on approve)'],
  },
  'edge-loop-requires-back-edge': {
    definition: { nodes: [human('review'), agent('later')], edges: [{ from: 'review', to: 'later', on: 'reject', loop: { maxIterations: 2 } }] },
    names: ['edges[0] (review → later, on reject)', '"later" does not lead to "review"'],
  },
  'edge-reject-cycle-requires-loop': {
    definition: { nodes: [agent('draft'), human('review')], edges: [{ from: 'draft', to: 'review' }, { from: 'review', to: 'draft', on: 'reject' }] },
    names: ['edges[1] (review → draft, on reject)', 'loop'],
  },
  'edge-exhausted-requires-loop-sibling': {
    definition: { nodes: [human('review'), notify('n'), notify('esc')], edges: [{ from: 'review', to: 'n', on: 'reject' }, { from: 'review', to: 'esc', on: 'exhausted' }] },
    names: ['edges[1] (review → esc, on exhausted)'],
  },
  'loop-node-in-multiple-loops': {
    definition: {
      nodes: [agent('agent-draft'), human('human-legal'), human('human-brand')],
      edges: [
        { from: 'agent-draft', to: 'human-legal' },
        { from: 'agent-draft', to: 'human-brand' },
        { from: 'human-legal', to: 'agent-draft', on: 'reject', loop: { maxIterations: 3 } },
        { from: 'human-brand', to: 'agent-draft', on: 'reject', loop: { maxIterations: 3 } },
      ],
    },
    names: ['node "agent-draft"', 'loop-human-legal-agent-draft', 'edges[2]', 'loop-human-brand-agent-draft', 'edges[3]'],
  },
  'loop-body-must-have-single-terminal': {
    definition: {
      nodes: [agent('draft'), human('review'), notify('fyi'), agent('publish')],
      edges: [
        { from: 'draft', to: 'review' },
        { from: 'draft', to: 'fyi' },
        { from: 'review', to: 'publish', on: 'approve' },
        { from: 'review', to: 'draft', on: 'reject', loop: { maxIterations: 2 } },
      ],
    },
    names: ['loop-review-draft', 'edges[3]', '2 nodes (draft, review)'],
  },
  'loop-group-bounded-quorum-must-equal-expected': {
    definition: {
      nodes: [agent('draft'), human('a'), human('b'), agent('publish')],
      edges: [
        { from: 'draft', to: group('g') },
        { from: 'a', to: 'publish' },
        { from: 'b', to: 'publish' },
        { from: group('g'), to: 'draft', on: 'reject', loop: { maxIterations: 2 } },
      ],
      groups: [{ groupId: 'g', memberNodeIds: ['a', 'b'], quorum: 1, onQuorumMet: 'joinOnQuorum' }],
    },
    names: ['loop-g-draft', 'group "g"', 'quorum (1)', 'expectedSteps (2)'],
  },
};

describe('each rule, broken by a minimal definition', () => {
  it('every rule has a case', () => {
    expect(Object.keys(BROKEN).sort()).toEqual([...GRAPH_RULES].sort());
  });

  for (const [code, { definition, names }] of Object.entries(BROKEN)) {
    it(code, () => {
      const error = refusal(definition);
      const issue = error.issues.find((found) => found.code === code);
      expect(issue, `issues: ${JSON.stringify(error.issues)}`).toBeDefined();
      expect(issue!.message.startsWith(`${code}: `)).toBe(true);
      for (const name of names) expect(issue!.message).toContain(name);
      expect(issue!.at).toMatch(/^(nodes|edges|groups)\[\d+\]$/);
    });
  }
});

describe('GraphError', () => {
  it('carries the first issue as code, at and message, and every issue of the stage that found any', () => {
    const error = refusal({
      nodes: [human('a'), { nodeId: 'b', type: 'agent', config: { agentId: 'x' } }],
      edges: [{ from: 'a', to: 'ghost' }],
    });
    expect(error.code).toBe('dangling-edge');
    expect(error.at).toBe('edges[0]');
    // The undeclared ID is not repeated (a refusal never echoes what it refuses).
    expect(error.message).toBe('dangling-edge: edges[0].to names a node the definition does not declare');
    expect(error.issues.map((issue) => issue.code)).toEqual(['dangling-edge', 'human-node-requires-reject-path', 'agent-node-requires-url-or-urlpath']);
    expect(error.name).toBe('GraphError');
  });

  it('reports later stages only once the earlier ones are clean', () => {
    // A dangling edge and a cycle: only the dangling edge (the cycle search needs resolved edges).
    const error = refusal({ nodes: [agent('a'), agent('b')], edges: [{ from: 'a', to: 'b' }, { from: 'b', to: 'a' }, { from: 'a', to: 'nowhere' }] });
    expect(error.issues.map((issue) => issue.code)).toEqual(['dangling-edge']);
  });

  it('names a reject cycle as such, and a self-edge as a cycle', () => {
    const reject = refusal({ nodes: [human('h'), notify('n')], edges: [{ from: 'h', to: 'h', on: 'reject' }] });
    expect(reject.issues.map((issue) => issue.code)).toEqual(['edge-reject-cycle-requires-loop']);
    const self = refusal({ nodes: [agent('a')], edges: [{ from: 'a', to: 'a' }] });
    expect(self.issues.map((issue) => issue.message)).toContain('cycle-detected: a → a is a cycle (edges[0]); only a reject edge marked with loop may go back to an earlier node');
  });

  it('refuses a loop back to its own source, and a group loop whose entry does not lead to every member', () => {
    const self = refusal({ nodes: [human('h')], edges: [{ from: 'h', to: 'h', on: 'reject', loop: { maxIterations: 2 } }] });
    expect(self.code).toBe('edge-loop-requires-back-edge');
    const partial = refusal({
      nodes: [agent('draft'), human('a'), human('b')],
      edges: [{ from: 'draft', to: 'a' }, { from: group('g'), to: 'draft', on: 'reject', loop: { maxIterations: 2 } }],
      groups: [{ groupId: 'g', memberNodeIds: ['a', 'b'], quorum: 2, onQuorumMet: 'joinOnQuorum' }],
    });
    expect(partial.message).toContain('edge-loop-requires-back-edge: edges[1] (group g → draft, on reject): "draft" does not lead to member "b" of group "g"');
    const toGroup = refusal({
      nodes: [agent('a'), human('h')],
      edges: [{ from: 'a', to: 'h' }, { from: 'h', to: group('g'), on: 'reject', loop: { maxIterations: 2 } }],
      groups: [{ groupId: 'g', memberNodeIds: ['a'], quorum: 1 }],
    });
    expect(toGroup.code).toBe('edge-loop-requires-back-edge');
  });

  it('a breached edge from a group, and the other human-reviewers cases', () => {
    const fromGroup = refusal({
      nodes: [agent('a'), agent('n')],
      edges: [{ from: group('g'), to: 'n', on: 'breached' }],
      groups: [{ groupId: 'g', memberNodeIds: ['a'], quorum: 1 }],
    });
    expect(fromGroup.message).toContain('a group has no SLA of its own');
    const neither = refusal({ nodes: [{ nodeId: 'h', type: 'human', config: {} }, notify('n')], edges: [{ from: 'h', to: 'n', on: 'reject' }] });
    expect(neither.message).toBe('human-reviewers: node "h" (nodes[0]) sets neither config.reviewers nor config.reviewerIds');
    const twice = refusal({ nodes: [{ nodeId: 'h', type: 'human', config: { reviewerIds: ['u1', 'u2', 'u1'] } }, notify('n')], edges: [{ from: 'h', to: 'n', on: 'reject' }] });
    expect(twice.message).toContain('lists reviewer "u1" more than once');
  });

  it('condition-invalid carries the ConditionError message', () => {
    const error = refusal({ nodes: [agent('a'), agent('b')], edges: [{ from: 'a', to: 'b', on: 'custom', when: '{"op":"gt","args":[1]}' }] });
    expect(error.message).toBe('condition-invalid: edges[0] (a → b, on custom): "gt" takes 2 arguments, got 1');
  });
});
