/**
 * Every number field of every request, with the request that carries it at a
 * given value. test/contract/numeric-bounds.test.ts proves the list complete;
 * test/http/numeric-boundaries.test.ts sends each field's minimum and maximum
 * (which must succeed and read back exactly) and one step past each (which
 * must be INVALID_ARGUMENT), on whichever database the suite runs against.
 */
export interface NumericFieldCase {
  operation: string;
  path: string;
  /** The operation's path and a valid body with the field at `value`. */
  request(value: number): { path: string; data: Record<string, unknown> };
  /** Reads the stored value back, when the operation stores it. */
  readBack?: { path: string; data: Record<string, unknown>; pick(result: any): unknown };
  /** The highest value the service accepts, when it is below the contract's maximum (a time that must not be in the future). */
  highest?: () => number;
  /**
   * A number kept inside stored JSON rather than a column (an agent's user
   * context `defaultValue`): fractions are accepted and read back exactly,
   * so the field needs bounds but not `int`.
   */
  fractional?: true;
}

const resource = (expiresAt: number) => [{ type: 'document', id: 'bounds-doc', organizationId: 'bounds-org', expiresAt }];

const boundsAttachment = { attachmentId: 1, url: 'https://files.example.com/r.webm', mimeType: 'video/webm', name: 'r.webm', type: 'video', size: 1 };
const boundsRecording = {
  organizationId: 'bounds-org',
  documentId: 'bounds-doc',
  recordingType: 'screen',
  mode: 'floating',
  recordedTime: { duration: 1000 },
  displayName: 'bounds',
  attachments: [boundsAttachment],
  from: { userId: 'bounds-user' },
};

/**
 * The webhook endpoint the bounds test's workspace creates (with advanced
 * webhooks on) before the cases run; disabled, so nothing is ever sent to it.
 */
export const boundsWebhook = { url: 'https://93.184.215.14/bounds', endpointId: '' };

/**
 * The custom agent the bounds test's workspace creates before the cases run,
 * with a version row at the highest version number (written to the database
 * directly: no client makes two billion versions).
 */
export const boundsAgent = { agentId: '' };
export const boundsAgentConfig = { name: 'bounds', description: 'bounds', enabled: true, instructions: 'Check.', contextGathering: { strategies: ['web-page-text'] }, execution: {} };
/**
 * The agent the bounds test runs (with a number user context field), and the
 * documents its runs are on: one run per document at a time, so each
 * request takes the next document (the server's run limit is raised for it).
 */
export const boundsRunAgent = { agentId: '' };
export const boundsRunAgentConfig = { ...boundsAgentConfig, name: 'bounds runs', input: { userContextFields: [{ id: 'n', title: 'N', type: 'number' }] } };
export const BOUNDS_RUN_DOCUMENTS = 16;
let runDocument = 0;
const nextRunDocument = () => `bounds-run-${runDocument++ % BOUNDS_RUN_DOCUMENTS}`;
const runRequest = (extra: Record<string, unknown>) => ({
  path: '/v2/agents/execution/run',
  data: { agentId: boundsRunAgent.agentId, url: 'https://93.184.215.14/page', organizationId: 'bounds-org', documentId: nextRunDocument(), ...extra },
});
const numberField = (value: number) => ({ userContextFields: [{ id: 'n', title: 'N', type: 'number', defaultValue: value }] });

/**
 * Workflow definitions of the bounds test: each create takes a fresh ID, each
 * update its own definition (created before the cases run) at the version
 * the previous valid update left it; `bounds-wf-if-max` is written at the
 * highest version ifVersion takes, directly to the database.
 */
let boundsDefinitionCount = 0;
const nextDefinitionId = () => `bounds-c-${boundsDefinitionCount++}`;
export const BOUNDS_WORKFLOW_UPDATES: string[] = [];
const boundsDefinitionVersions = new Map<string, number>();
export const boundsWorkflow = { executionId: '' };
const HOOK_URL = 'https://93.184.215.14/hook';
const PAGE_URL = 'https://93.184.215.14/page';
/** A valid graph around one node of each type, with `extra` on the node (or its config). */
export function boundsGraph(type: 'agent' | 'human' | 'notification' | 'webhook', node: Record<string, unknown> = {}, config: Record<string, unknown> = {}) {
  const notify = (nodeId: string) => ({ nodeId, type: 'notification', config: { userIds: ['bounds-user'], bodyTemplate: 'x' } });
  switch (type) {
    case 'agent':
      return { nodes: [{ nodeId: 'a', type, config: { agentId: 'broken-links', url: PAGE_URL, ...config }, ...node }] };
    case 'human':
      return { nodes: [{ nodeId: 'h', type, config: { reviewers: [{ userId: 'bounds-user' }], ...config }, ...node }, notify('n')], edges: [{ from: 'h', to: 'n', on: 'reject' }, { from: 'h', to: 'n', on: 'always' }] };
    case 'notification':
      return { nodes: [{ ...notify('n'), ...node }] };
    case 'webhook':
      return { nodes: [{ nodeId: 'w', type, config: { url: HOOK_URL, ...config }, ...node }] };
  }
}
function groupGraph(members: number, quorum: number) {
  const nodes = Array.from({ length: members }, (_, i) => ({ nodeId: `n${i}`, type: 'notification', config: { userIds: ['bounds-user'], bodyTemplate: 'x' } }));
  return { nodes, groups: [{ groupId: 'g', memberNodeIds: nodes.map((n) => n.nodeId), expectedSteps: members, quorum }] };
}
function loopGraph(maxIterations: number) {
  return {
    nodes: [
      { nodeId: 'draft', type: 'notification', config: { userIds: ['bounds-user'], bodyTemplate: 'x' } },
      { nodeId: 'review', type: 'human', config: { reviewers: [{ userId: 'bounds-user' }] } },
      { nodeId: 'done', type: 'notification', config: { userIds: ['bounds-user'], bodyTemplate: 'x' } },
    ],
    edges: [
      { from: 'draft', to: 'review' },
      { from: 'review', to: 'draft', on: 'reject', loop: { maxIterations } },
      { from: 'review', to: 'done', on: 'approve' },
    ],
  };
}
const workflowRequest = (graph: Record<string, unknown>) => ({ path: '/v2/workflow/definitions/create', data: { definitionId: nextDefinitionId(), name: 'bounds', ...graph } });
/** An update of its own definition: ifVersion is the version the last valid update left (an invalid value never reaches the service). */
function workflowUpdate(graph: (value: number) => Record<string, unknown>, valid: (value: number) => boolean) {
  const definitionId = `bounds-u-${BOUNDS_WORKFLOW_UPDATES.length}`;
  BOUNDS_WORKFLOW_UPDATES.push(definitionId);
  return (value: number) => {
    const current = boundsDefinitionVersions.get(definitionId) ?? 1;
    if (valid(value)) boundsDefinitionVersions.set(definitionId, current + 1);
    return { path: '/v2/workflow/definitions/update', data: { definitionId, ifVersion: current, name: 'bounds', ...graph(value) } };
  };
}
const within = (min: number, max: number) => (value: number) => Number.isInteger(value) && value >= min && value <= max;
/** The numeric fields of a definition, each as `[path, graph with the field at value, its bounds]`. */
const DEFINITION_NUMBERS: [string, (value: number) => Record<string, unknown>, [number, number]][] = [
  ['data.edges[].loop.maxIterations', loopGraph, [1, 20]],
  ['data.groups[].expectedSteps', (v) => groupGraph(v, 1), [1, 100]],
  ['data.groups[].quorum', (v) => groupGraph(100, v), [1, 100]],
  ['data.nodes[].config.agentMaxRuntimeMs', (v) => boundsGraph('agent', {}, { agentMaxRuntimeMs: v }), [1000, 86_400_000]],
  ['data.nodes[].config.callbackTimeoutMs', (v) => boundsGraph('webhook', {}, { mode: 'async', callbackTimeoutMs: v }), [1000, 604_800_000]],
  ['data.nodes[].config.expectedStatusCodes[]', (v) => boundsGraph('webhook', {}, { expectedStatusCodes: [v] }), [100, 599]],
  ['data.nodes[].config.maxUrlsToProcess', (v) => boundsGraph('agent', {}, { maxUrlsToProcess: v }), [1, 500]],
  ['data.nodes[].config.pollIntervalMs', (v) => boundsGraph('agent', {}, { pollIntervalMs: v }), [5000, 60_000]],
  ['data.nodes[].config.timeoutMs', (v) => boundsGraph('webhook', {}, { timeoutMs: v }), [1000, 60_000]],
  ...(['agent', 'human', 'notification', 'webhook'] as const).map(
    (type): [string, (value: number) => Record<string, unknown>, [number, number]] => ['data.nodes[].slaMs', (v) => boundsGraph(type, { slaMs: v }), [1000, 604_800_000]],
  ),
];

export const NUMERIC_FIELDS: NumericFieldCase[] = [
  ...(['addPermissions', 'removePermissions'] as const).map((operation) => ({
    operation,
    path: 'data.permissions.resources[].expiresAt',
    request: (value: number) => ({
      path: operation === 'addPermissions' ? '/v2/auth/permissions/add' : '/v2/auth/permissions/remove',
      data: { user: { userId: 'bounds-user' }, permissions: { resources: resource(value) } },
    }),
    ...(operation === 'addPermissions'
      ? {
          readBack: {
            path: '/v2/auth/permissions/get',
            data: { organizationId: 'bounds-org', userIds: ['bounds-user'], documentIds: ['bounds-doc'] },
            pick: (result: any) => result.data['bounds-user'].documents['bounds-doc'].expiresAt,
          },
        }
      : {}),
  })),
  {
    operation: 'generateToken',
    path: 'data.permissions.resources[].expiresAt',
    request: (value) => ({
      path: '/v2/auth/generate_token',
      data: { userId: 'bounds-user', userProperties: { name: 'B', email: 'b@example.com' }, permissions: { resources: resource(value) } },
    }),
    readBack: {
      path: '/v2/users/get',
      data: { organizationId: 'bounds-org', documentId: 'bounds-doc', userIds: ['bounds-user'] },
      pick: (result: any) => result.data[0].expiresAt,
    },
  },
  ...(
    [
      ['getOrganizations', '/v2/organizations/get', {}],
      ['getDocuments', '/v2/organizations/documents/get', { organizationId: 'bounds-org' }],
      ['getUsers', '/v2/users/get', { organizationId: 'bounds-org' }],
      ['getCommentAnnotations', '/v2/commentannotations/get', { organizationId: 'bounds-org', documentIds: ['bounds-doc'] }],
      ['getNotifications', '/v2/notifications/get', { organizationId: 'bounds-org', documentId: 'bounds-doc' }],
      ['getActivityLogs', '/v2/activities/get', { organizationId: 'bounds-org' }],
      ['getRecordings', '/v2/recordings/get', { organizationId: 'bounds-org' }],
      ['getWebhookEndpoints', '/v2/workspace/advancedwebhook/endpoints/get', {}],
    ] as const
  ).map(([operation, path, data]) => ({
    operation,
    path: 'data.pageSize',
    request: (value: number) => ({ path, data: { ...data, pageSize: value } }),
  })),
  ...(
    [
      ['getWebhookMessages', '/v2/workspace/advancedwebhook/messages/get'],
      ['getWebhookAttempts', '/v2/workspace/advancedwebhook/attempts/get'],
    ] as const
  ).map(([operation, path]) => ({
    operation,
    path: 'data.pageSize',
    request: (value: number) => ({ path, data: { endpointId: boundsWebhook.endpointId, pageSize: value } }),
  })),
  // Each value on a new endpoint, read back as the newest; and on the one endpoint, read back from it.
  {
    operation: 'createWebhookEndpoint',
    path: 'data.rateLimit',
    request: (value) => ({ path: '/v2/workspace/advancedwebhook/endpoints/create', data: { url: boundsWebhook.url, disabled: true, rateLimit: value } }),
    readBack: { path: '/v2/workspace/advancedwebhook/endpoints/get', data: {}, pick: (result: any) => result.data[result.data.length - 1].rateLimit },
  },
  {
    operation: 'updateWebhookEndpoint',
    path: 'data.rateLimit',
    request: (value) => ({ path: '/v2/workspace/advancedwebhook/endpoints/update', data: { endpointId: boundsWebhook.endpointId, rateLimit: value } }),
    readBack: {
      path: '/v2/workspace/advancedwebhook/endpoints/get',
      get data() {
        return { endpointId: boundsWebhook.endpointId };
      },
      pick: (result: any) => result.data[0].rateLimit,
    },
  },
  {
    operation: 'getFolders',
    path: 'data.maxDepth',
    request: (value) => ({ path: '/v2/organizations/folders/get', data: { organizationId: 'bounds-org', maxDepth: value } }),
  },
  // Add Recording: each value is stored in a new recording (IDs are generated), read back as the newest of the document.
  ...(
    [
      ['data.recordedTime.duration', (v: number) => ({ recordedTime: { duration: v } }), (r: any) => r.recordedTime.duration],
      ['data.attachments[].attachmentId', (v: number) => ({ attachments: [{ ...boundsAttachment, attachmentId: v }] }), (r: any) => r.attachments[0].attachmentId],
      ['data.attachments[].size', (v: number) => ({ attachments: [{ ...boundsAttachment, size: v }] }), (r: any) => r.attachments[0].size],
      ['data.latestVersion', (v: number) => ({ latestVersion: v }), (r: any) => r.latestVersion],
    ] as const
  ).map(([path, fields, pick]) => ({
    operation: 'addRecording',
    path,
    request: (value: number) => ({ path: '/v2/recordings/add', data: { ...boundsRecording, ...fields(value) } }),
    readBack: {
      path: '/v2/recordings/get',
      data: { organizationId: 'bounds-org', documentId: 'bounds-doc' },
      pick: (result: any) => pick(result.data[result.data.length - 1]),
    },
  })),
  {
    operation: 'getJudgments',
    path: 'data.pageSize',
    request: (value) => ({ path: '/v2/memory/judgments/get', data: { pageSize: value } }),
  },
  // Add Judgment: each value in a new judgment (generated IDs sort by creation), read back as the one with the highest ID.
  {
    operation: 'addJudgment',
    path: 'data.decidedAt',
    request: (value) => ({ path: '/v2/memory/judgments/add', data: { subject: 'bounds', decision: 'approve', reason: 'bounds', reviewerId: 'bounds-user', decidedAt: value } }),
    readBack: {
      path: '/v2/memory/judgments/get',
      data: { reviewerId: 'bounds-user' },
      pick: (result: any) => result.data.reduce((a: any, b: any) => (a.judgmentId > b.judgmentId ? a : b)).decidedAt,
    },
    // The service refuses a decision more than a minute ahead of its clock.
    highest: () => Date.now(),
  },
  // Agents: a user context field's number default on a new agent and on a new version of the bounds agent.
  {
    operation: 'createAgent',
    path: 'data.input.userContextFields[].defaultValue',
    fractional: true,
    request: (value) => ({ path: '/v2/agents/create', data: { ...boundsAgentConfig, input: numberField(value) } }),
  },
  {
    operation: 'updateAgentVersion',
    path: 'data.input.userContextFields[].defaultValue',
    fractional: true,
    request: (value) => ({ path: '/v2/agents/version/update', data: { agentId: boundsAgent.agentId, input: numberField(value) } }),
    readBack: {
      path: '/v2/agents/get',
      get data() {
        return { agentId: boundsAgent.agentId };
      },
      pick: (result: any) => result.data.agent.input.userContextFields[0].defaultValue,
    },
  },
  {
    operation: 'getAgentVersions',
    path: 'data.pageSize',
    request: (value) => ({ path: '/v2/agents/versions/get', data: { agentId: boundsAgent.agentId, pageSize: value } }),
  },
  {
    operation: 'getAgentVersion',
    path: 'data.version',
    request: (value) => ({ path: '/v2/agents/version/get', data: { agentId: boundsAgent.agentId, version: value } }),
  },
  // Agent runs: started only (the test runs no jobs), each on a document of its own.
  {
    operation: 'runAgent',
    path: 'data.maxUrlsToProcess',
    request: (value) => runRequest({ maxUrlsToProcess: value }),
  },
  {
    operation: 'runAgent',
    path: 'data.aiConfig.maxToolTurns',
    request: (value) => runRequest({ aiConfig: { maxToolTurns: value } }),
  },
  {
    operation: 'runAgent',
    path: 'data.userContext{}',
    fractional: true,
    request: (value) => runRequest({ userContext: { n: value } }),
  },
  {
    operation: 'listAgentExecutions',
    path: 'data.pageSize',
    request: (value) => ({ path: '/v2/agents/execution/list', data: { agentId: 'crawler', pageSize: value } }),
  },
  {
    operation: 'getAgentAnalytics',
    path: 'data.year',
    request: (value) => ({ path: '/v2/agents/analytics/get', data: { year: value } }),
  },
  {
    operation: 'getAgentAnalytics',
    path: 'data.month',
    request: (value) => ({ path: '/v2/agents/analytics/get', data: { year: 2026, month: value } }),
  },
  {
    operation: 'restoreAgentVersion',
    path: 'data.version',
    request: (value) => ({ path: '/v2/agents/versions/restore', data: { agentId: boundsAgent.agentId, version: value } }),
  },
  // Workflows: every number of a definition on create and on update, the update's ifVersion, and the pages.
  ...DEFINITION_NUMBERS.map(([path, graph]) => ({ operation: 'createWorkflowDefinition', path, request: (value: number) => workflowRequest(graph(value)) })),
  ...DEFINITION_NUMBERS.map(([path, graph, [min, max]]) => ({ operation: 'updateWorkflowDefinition', path, request: workflowUpdate(graph, within(min, max)) })),
  {
    operation: 'updateWorkflowDefinition',
    path: 'data.ifVersion',
    request: (value) => ({ path: '/v2/workflow/definitions/update', data: { definitionId: value === 1 ? 'bounds-wf-if-1' : 'bounds-wf-if-max', ifVersion: value, name: 'bounds', ...boundsGraph('notification') } }),
  },
  {
    operation: 'listWorkflowDefinitions',
    path: 'data.pageSize',
    request: (value) => ({ path: '/v2/workflow/definitions/list', data: { pageSize: value } }),
  },
  {
    operation: 'listWorkflowExecutions',
    path: 'data.pageSize',
    request: (value) => ({ path: '/v2/workflow/executions/list', data: { pageSize: value } }),
  },
  {
    operation: 'getWorkflowExecutionEvents',
    path: 'data.pageSize',
    request: (value) => ({ path: '/v2/workflow/executions/getEvents', data: { executionId: boundsWorkflow.executionId, pageSize: value } }),
  },
  {
    operation: 'getWorkflowExecutionEvents',
    path: 'data.sinceSeq',
    request: (value) => ({ path: '/v2/workflow/executions/getEvents', data: { executionId: boundsWorkflow.executionId, sinceSeq: value } }),
  },
];
