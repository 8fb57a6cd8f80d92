import { z } from 'zod';
import { operation, pagedResultOf, resultOf } from '../common/envelope.js';
import { ZPageToken } from '../common/paging.js';
import { definitionFields, REDACTED, ZDefinitionId, ZWorkflowDefinition, type TWorkflowDefinition } from './schemas.js';

export const MAX_DEFINITIONS_PAGE = 500;
export const DEFAULT_DEFINITIONS_PAGE = 50;

const VALIDATION = `Checked as a whole (INVALID_ARGUMENT naming the node, edge or group, with the rule's code, e.g. \`dangling-edge: edges[2] goes to node "legal" that the definition does not have\`): an unknown node type or agent, an edge to a missing node or group, a node no path reaches, a cycle without a loop bound, a group over missing nodes, a condition that does not parse, a human node without an \`on: reject\` edge, a node with \`slaMs\` whose edges do not route a breach, and the loop and group rules of docs/workflows.md.`;

export const EXAMPLE_DEFINITION: TWorkflowDefinition = {
  definitionId: 'q3-plan-signoff',
  name: 'Q3 plan sign-off',
  description: null,
  version: 1,
  status: 'active',
  scope: { level: 'document', organizationId: 'org-acme', documentId: 'doc-q3-plan' },
  nodes: [
    { nodeId: 'brand-check', type: 'agent', config: { agentId: 'broken-links', urlPath: 'pageUrl', blocking: true } },
    { nodeId: 'lead-review', type: 'human', config: { reviewers: [{ userId: 'user-ada', mandatory: true }] } },
    { nodeId: 'tell-team', type: 'notification', config: { userIds: ['user-ada'], bodyTemplate: 'The Q3 plan was {{input.decision}}d.' } },
    { nodeId: 'archive', type: 'notification', config: { userIds: ['user-ada'], bodyTemplate: 'Archived after review.' } },
  ],
  edges: [
    { from: 'brand-check', to: 'lead-review', on: 'approve' },
    { from: 'lead-review', to: 'tell-team', on: 'approve' },
    { from: 'lead-review', to: 'archive', on: 'approve' },
    { from: 'lead-review', to: 'brand-check', on: 'reject', loop: { maxIterations: 3 } },
  ],
  groups: null,
  compiled: {
    forwardEdges: [
      { from: 'brand-check', to: 'lead-review', role: 'approve', when: { op: 'eq', args: [{ var: 'output.decision' }, 'approve'] } },
      { from: 'lead-review', to: 'tell-team', role: 'approve', when: { op: 'eq', args: [{ var: 'output.decision' }, 'approve'] } },
      { from: 'lead-review', to: 'archive', role: 'approve', when: { op: 'eq', args: [{ var: 'output.decision' }, 'approve'] } },
    ],
    loops: [
      {
        loopId: 'loop-lead-review-brand-check',
        from: 'lead-review',
        entryNodeId: 'brand-check',
        bodyNodeIds: ['brand-check', 'lead-review'],
        maxIterations: 3,
        onExhausted: null,
      },
    ],
  },
  triggers: null,
  webhookConfig: null,
  tags: null,
  custom: null,
  createdAt: 1764316800000,
  updatedAt: 1764316800000,
};

const { definitionId: _id, version: _v, status: _s, compiled: _c, createdAt: _ca, updatedAt: _ua, groups: _g, triggers: _t, webhookConfig: _w, tags: _tags, custom: _custom, description: _d, ...exampleInput } = EXAMPLE_DEFINITION;

export const createWorkflowDefinition = operation({
  path: '/v2/workflow/definitions/create',
  summary: 'Create Workflow Definition',
  description: `Stores version 1 of a workflow definition. ${VALIDATION} ALREADY_EXISTS when the application has a definition with this \`definitionId\` (a tombstoned one included: purge it first). Secrets left out (\`webhookConfig.secret\`, an inbound trigger's \`secret\`) are generated and shown in full in this response only; reads show \`${REDACTED}\`.`,
  data: z.object(definitionFields).strict(),
  result: resultOf(ZWorkflowDefinition),
  example: {
    data: { definitionId: 'q3-plan-signoff', ...exampleInput },
    result: { status: 'success', message: 'Workflow definition created.', data: EXAMPLE_DEFINITION },
  },
});

export const updateWorkflowDefinition = operation({
  path: '/v2/workflow/definitions/update',
  summary: 'Update Workflow Definition',
  description: `Replaces the definition as a whole (a field left out is gone, \`scope\` back to \`apiKey\`) and stores it as the next version; running executions keep the version they started with. \`ifVersion\` must be the current version: FAILED_PRECONDITION (\`version conflict: expected 1, current 2\`) otherwise, so that a concurrent edit is never overwritten. A secret sent as \`${REDACTED}\` keeps the stored one. ${VALIDATION} NOT_FOUND for an unknown or tombstoned definition.`,
  data: z.object({ ...definitionFields, ifVersion: z.number().int().min(1).max(2_147_483_646).describe('The version the update replaces (the next one must fit a 32-bit column).') }).strict(),
  result: resultOf(ZWorkflowDefinition),
  example: {
    data: { definitionId: 'q3-plan-signoff', ifVersion: 1, ...exampleInput, name: 'Q3 plan sign-off (v2)' },
    result: { status: 'success', message: 'Workflow definition updated.', data: { ...EXAMPLE_DEFINITION, name: 'Q3 plan sign-off (v2)', version: 2, updatedAt: 1764320400000 } },
  },
});

export const getWorkflowDefinition = operation({
  path: '/v2/workflow/definitions/get',
  summary: 'Get Workflow Definition',
  description: `The definition's current version with its compiled view (\`compiled.forwardEdges\`: group endpoints expanded per member, each role's condition; \`compiled.loops\`). A tombstoned definition is returned with \`status: tombstoned\` (its executions stay readable). NOT_FOUND for an unknown one.`,
  data: z.object({ definitionId: ZDefinitionId }).strict(),
  result: resultOf(ZWorkflowDefinition),
  example: {
    data: { definitionId: 'q3-plan-signoff' },
    result: { status: 'success', message: 'Workflow definition retrieved successfully.', data: EXAMPLE_DEFINITION },
  },
});

export const listWorkflowDefinitions = operation({
  path: '/v2/workflow/definitions/list',
  summary: 'List Workflow Definitions',
  description: `Active definitions, the most recently updated first, every scope; \`includeTombstoned\` adds tombstoned ones. \`pageSize\` 1–${MAX_DEFINITIONS_PAGE} (default ${DEFAULT_DEFINITIONS_PAGE}).`,
  data: z
    .object({
      pageSize: z.number().int().min(1).max(MAX_DEFINITIONS_PAGE).optional(),
      pageToken: ZPageToken,
      includeTombstoned: z.boolean().optional(),
    })
    .strict(),
  result: pagedResultOf(ZWorkflowDefinition),
  example: {
    data: { pageSize: 50 },
    result: { status: 'success', message: 'Workflow definitions retrieved successfully.', data: [EXAMPLE_DEFINITION], pageToken: null },
  },
});

export const deleteWorkflowDefinition = operation({
  path: '/v2/workflow/definitions/delete',
  summary: 'Delete Workflow Definition',
  description: 'Without `purge`: tombstones it (no new executions; Get shows it `tombstoned`; its executions stay readable and running ones go on). With `purge: true`: deletes it with every version and every execution, event and step of it; FAILED_PRECONDITION while one of its executions is still pending or running (cancel them first). NOT_FOUND for an unknown definition.',
  data: z.object({ definitionId: ZDefinitionId, purge: z.boolean().optional() }).strict(),
  result: resultOf(z.object({ definitionId: z.string(), deleted: z.literal(true), purged: z.boolean() })),
  example: {
    data: { definitionId: 'q3-plan-signoff' },
    result: { status: 'success', message: 'Workflow definition deleted.', data: { definitionId: 'q3-plan-signoff', deleted: true, purged: false } },
  },
});
