import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '../../contract/index.js';
import { eventually } from '../helpers/eventually.js';
import { closeReceivers, startReceiver } from '../helpers/receiver.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials, putRawSetting } from '../helpers/server.js';

/**
 * Workspace B, with its own valid credentials, asks every read operation for
 * workspace A's data. Nothing of A may come back. A marker string is seeded
 * into A's data and must not appear in any of B's responses.
 */
const MARKER = 'tenant-a-marker-7f3c';
/** IDs B asks for: B knows them (it sends them), so echoing them back is no leak; A's names and settings are. */
const ID = 'shared-id';

interface ReadCase {
  name: string;
  path: string;
  headers(b: WorkspaceCredentials): Record<string, string>;
  data(a: WorkspaceCredentials): unknown;
}

const workspaceHeaders = (c: WorkspaceCredentials) => ({ 'x-service-workspace-id': c.workspaceId, 'x-service-workspace-auth-token': c.workspaceAuthToken });

const READS: ReadCase[] = [
  { name: 'getActivityConfig', path: '/v2/workspace/activityconfig/get', headers: appHeaders, data: () => ({}) },
  { name: 'getPermissionProviderConfig', path: '/v2/workspace/permissionproviderconfig/get', headers: appHeaders, data: () => ({}) },
  { name: 'getEmailConfig', path: '/v2/workspace/emailconfig/get', headers: appHeaders, data: () => ({}) },
  { name: 'getAuthTokens', path: '/v2/workspace/authtokens/get', headers: workspaceHeaders, data: (a) => ({ apiKey: a.apiKey }) },
  { name: 'getPermissions', path: '/v2/auth/permissions/get', headers: appHeaders, data: () => ({ organizationId: ID, userIds: [ID], documentIds: [ID], folderIds: [ID] }) },
  { name: 'getUsers', path: '/v2/users/get', headers: appHeaders, data: () => ({ organizationId: ID }) },
  { name: 'getOrganizations', path: '/v2/organizations/get', headers: appHeaders, data: () => ({}) },
  { name: 'getFolders', path: '/v2/organizations/folders/get', headers: appHeaders, data: () => ({ organizationId: ID }) },
  { name: 'getDocuments', path: '/v2/organizations/documents/get', headers: appHeaders, data: () => ({ organizationId: ID }) },
  { name: 'getCommentAnnotations', path: '/v2/commentannotations/get', headers: appHeaders, data: () => ({ organizationId: ID, documentIds: [ID] }) },
  { name: 'getCommentAnnotationsCount', path: '/v2/commentannotations/count/get', headers: appHeaders, data: () => ({ organizationId: ID, documentIds: [ID], userId: ID }) },
  { name: 'getComments', path: '/v2/commentannotations/comments/get', headers: appHeaders, data: () => ({ organizationId: ID, documentId: ID, annotationId: ID }) },
  { name: 'getNotifications', path: '/v2/notifications/get', headers: appHeaders, data: () => ({ organizationId: ID, documentId: ID, userId: ID }) },
  { name: 'getNotificationConfig', path: '/v1/notifications/config/get', headers: appHeaders, data: () => ({ organizationId: ID, documentIds: [ID], userId: ID }) },
  { name: 'getNotificationConfigV2', path: '/v2/notifications/config/get', headers: appHeaders, data: () => ({ organizationId: ID, documentIds: [ID], userId: ID }) },
  { name: 'getActivityLogs', path: '/v2/activities/get', headers: appHeaders, data: () => ({ organizationId: ID, documentId: ID, userId: ID }) },
  { name: 'getRecordings', path: '/v2/recordings/get', headers: appHeaders, data: () => ({ organizationId: ID, documentId: ID }) },
  { name: 'getCrdtData', path: '/v2/crdt/get', headers: appHeaders, data: () => ({ organizationId: ID, documentId: ID, editorId: ID }) },
  { name: 'getLiveStateData', path: '/v2/livestate/get', headers: appHeaders, data: () => ({ organizationId: ID, documentId: ID }) },
  { name: 'getPresence', path: '/v2/presence/get', headers: appHeaders, data: () => ({ organizationId: ID, documentId: ID }) },
  { name: 'getAllUserData', path: '/v1/users/data/get', headers: appHeaders, data: () => ({ organizationId: ID, userId: ID }) },
  { name: 'getAllUserDataV2', path: '/v2/users/data/get', headers: appHeaders, data: () => ({ organizationId: ID, userId: ID }) },
  // A's job IDs (B cannot know them, but might guess or steal one): the status must not exist for B.
  { name: 'getDeleteAllUserDataStatus', path: '/v2/users/data/delete/status', headers: appHeaders, data: () => ({ jobId: jobIds.erasure }) },
  { name: 'getMigrateDocumentsStatus', path: '/v2/organizations/documents/migrate/status', headers: appHeaders, data: () => ({ organizationId: ID, migrationId: jobIds.migration }) },
  // A's webhook endpoint and message IDs (assigned by the service; B might guess or steal one).
  { name: 'getAdvancedWebhookConfig', path: '/v2/workspace/advancedwebhookconfig/get', headers: appHeaders, data: () => ({}) },
  { name: 'getWebhookEndpoints', path: '/v2/workspace/advancedwebhook/endpoints/get', headers: appHeaders, data: () => ({ endpointId: webhookIds.endpoint }) },
  { name: 'getWebhookEndpointSecret', path: '/v2/workspace/advancedwebhook/endpoints/secret/get', headers: appHeaders, data: () => ({ endpointId: webhookIds.endpoint }) },
  { name: 'getWebhookMessages', path: '/v2/workspace/advancedwebhook/messages/get', headers: appHeaders, data: () => ({ endpointId: webhookIds.endpoint }) },
  {
    name: 'getWebhookAttempts',
    path: '/v2/workspace/advancedwebhook/attempts/get',
    headers: appHeaders,
    data: () => ({ endpointId: webhookIds.endpoint, messageId: webhookIds.message }),
  },
  // Public; asking about A's email reveals only a boolean, never A's data.
  { name: 'getEmailVerificationStatus', path: '/v2/workspace/email/status', headers: () => ({}), data: () => ({ ownerEmail: `${MARKER}@example.com` }) },
  { name: 'getJudgments', path: '/v2/memory/judgments/get', headers: appHeaders, data: () => ({ organizationId: ID, documentId: ID, reviewerId: ID }) },
  // A's agent (its ID assigned by the service; B might guess or steal one) and group.
  { name: 'getAgents', path: '/v2/agents/get', headers: appHeaders, data: () => ({ agentId: agentIds.agent }) },
  { name: 'getAgentVersions', path: '/v2/agents/versions/get', headers: appHeaders, data: () => ({ agentId: agentIds.agent }) },
  { name: 'getAgentVersion', path: '/v2/agents/version/get', headers: appHeaders, data: () => ({ agentId: agentIds.agent, version: 1 }) },
  { name: 'getAgentGroups', path: '/v2/agents/groups/get', headers: appHeaders, data: () => ({ groupId: ID }) },
  // A's run of its agent (its ID assigned by the service; B might guess or steal one), and A's run counts.
  { name: 'getAgentExecution', path: '/v2/agents/execution/get', headers: appHeaders, data: () => ({ executionId: agentIds.execution, includeResults: true }) },
  { name: 'getAgentAnalytics', path: '/v2/agents/analytics/get', headers: appHeaders, data: () => ({ agentId: 'crawler' }) },
  // A's workflow definition (named with the marker) and its execution (ID assigned by the service; B might guess or steal one).
  { name: 'getWorkflowDefinition', path: '/v2/workflow/definitions/get', headers: appHeaders, data: () => ({ definitionId: 'tenant-a-flow' }) },
  { name: 'getWorkflowExecution', path: '/v2/workflow/executions/get', headers: appHeaders, data: () => ({ executionId: workflowIds.execution }) },
  { name: 'getWorkflowExecutionEvents', path: '/v2/workflow/executions/getEvents', headers: appHeaders, data: () => ({ executionId: workflowIds.execution }) },
];

/** Jobs of A, started in beforeAll (never run: nothing of A changes). */
const NOT_FOUND_FOR_B = [
  'getCrdtData',
  'getLiveStateData',
  'getPresence',
  'getAuthTokens',
  'getAllUserData',
  'getAllUserDataV2',
  'getDeleteAllUserDataStatus',
  'getMigrateDocumentsStatus',
  'getWebhookEndpoints',
  'getWebhookEndpointSecret',
  'getWebhookMessages',
  'getWebhookAttempts',
  'getAgents',
  'getAgentVersions',
  'getAgentVersion',
  'getAgentGroups',
  'getAgentExecution',
  'getWorkflowDefinition',
  'getWorkflowExecution',
  'getWorkflowExecutionEvents',
];
/** A's custom agent, with its marker in name, description and configuration. */
const agentIds = { agent: '', execution: '' };
const jobIds = { erasure: '', migration: '' };
const workflowIds = { execution: '' };
/** A's webhook endpoint, with one message delivered (a test event carrying the marker). */
const webhookIds = { endpoint: '', message: '' };

let server: TestServer;
let a: WorkspaceCredentials;
let b: WorkspaceCredentials;

beforeAll(async () => {
  // Private URLs: A's webhook endpoint is a local receiver.
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  a = await server.workspace(`${MARKER}@example.com`);
  b = await server.workspace();
  const appA = (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', a.apiKey)).apiKey.id;
  await putRawSetting(server, appA, 'activity', { isEnabled: true, triggers: { [MARKER]: { added: true } } });
  await putRawSetting(server, appA, 'permissionProvider', { usePermissionProvider: false, permissionProviderUrl: `https://${MARKER}.example.com`, authTokenSealed: '' });
  const client = server.client(a);
  await client.organizations.addOrganization({ organizationId: ID, organizationName: MARKER });
  await client.organizations.addFolder({ organizationId: ID, folderId: ID, folderName: MARKER });
  await client.organizations.addDocument({ organizationId: ID, documentId: ID, documentName: MARKER, folderId: ID });
  await client.users.addUsers({ organizationId: ID, users: [{ userId: ID, name: MARKER, email: `${MARKER}@example.com` }] });
  await client.activities.addActivities({
    organizationId: ID,
    activities: [{ documentId: ID, featureType: 'custom', actionType: MARKER, actionUser: { userId: ID, name: MARKER }, targetEntityId: ID, displayMessageTemplate: MARKER }],
  });
  await client.recordings.addRecording({
    organizationId: ID,
    documentId: ID,
    annotationId: ID,
    recordingType: 'screen',
    mode: 'floating',
    recordedTime: { duration: 1 },
    displayName: MARKER,
    attachments: [],
    from: { userId: ID, name: MARKER },
  });
  // Feature-level access context, which Get Permissions returns to A only.
  await client.permissions.addPermissions({
    user: { userId: ID },
    permissions: { resources: [{ type: 'document', id: ID, organizationId: ID, context: { accessFields: [`team:${MARKER}`] } }] },
  });
  await client.comments.addCommentAnnotations({
    organizationId: ID,
    documentId: ID,
    commentAnnotations: [{ annotationId: ID, from: { userId: ID }, context: { [MARKER]: MARKER }, commentData: [{ commentId: ID, commentText: MARKER }] }],
  });
  await client.crdt.addCrdtData({ organizationId: ID, documentId: ID, editorId: ID, type: 'map', data: { [MARKER]: MARKER } });
  await client.liveState.broadcastEvent({ organizationId: ID, documentId: ID, liveStateDataId: ID, data: { [MARKER]: MARKER } });
  await client.presence.addPresence({ organizationId: ID, documentId: ID, user: { userId: ID, name: MARKER }, state: { [MARKER]: MARKER } });
  await client.notifications.addNotification({ organizationId: ID, documentId: ID, notificationId: ID, displayHeadlineMessageTemplate: MARKER, notifyUsers: [ID] });
  await client.notifications.setNotificationConfig({ organizationId: ID, documentIds: [ID], userIds: [ID], config: { inbox: 'ALL' } });
  // Before A's webhook endpoint exists: the run's start event is no message of it.
  await client.workflowDefinitions.createWorkflowDefinition({
    definitionId: 'tenant-a-flow',
    name: MARKER,
    nodes: [{ nodeId: 'tell', type: 'notification', config: { userIds: [ID], bodyTemplate: MARKER } }],
  });
  workflowIds.execution = (await client.workflowExecutions.dispatchWorkflowExecution({ definitionId: 'tenant-a-flow', triggerContext: { note: MARKER } })).data.executionId;
  agentIds.execution = (await client.agentRuns.runAgent({ agentId: 'crawler', url: `https://${MARKER}.example.com/`, organizationId: ID, documentId: ID, ranBy: { userId: ID, name: MARKER } })).data.executionId;
  jobIds.erasure = (await client.userData.deleteAllUserData({ userId: `${ID}-other` })).data.jobId;
  jobIds.migration = (await client.migrations.migrateDocuments({ organizationId: ID, documentId: ID, newDocumentId: `${ID}-new` })).data.migrationId;
  await client.workspace.updateEmailConfig({
    useEmailService: true,
    emailServiceConfig: { type: 'thirdparty', apiKey: `SG.${MARKER}-provider-key`, fromEmail: `${MARKER}@example.com`, fromCompany: MARKER, triggers: { [MARKER]: true } },
  });
  const receiver = await startReceiver((_req, res) => res.writeHead(200).end(MARKER));
  await client.webhooks.updateAdvancedWebhookConfig({ isEnabled: true });
  const endpoint = await client.webhooks.createWebhookEndpoint({ url: `${receiver.url}/${MARKER}`, description: MARKER, uid: MARKER, metadata: { [MARKER]: MARKER } });
  webhookIds.endpoint = endpoint.data.id;
  webhookIds.message = (await client.webhooks.sendWebhookTestEvent({ endpointId: webhookIds.endpoint, eventType: MARKER, data: { [MARKER]: MARKER } })).data.messageId;
  await eventually(async () => (await client.webhooks.getWebhookAttempts({ endpointId: webhookIds.endpoint })).data.length === 1, "A's webhook attempt");
  for (const decision of ['approve', 'approve', 'reject'] as const) {
    await client.memory.addJudgment({ subject: `${MARKER} vendor contract`, decision, reason: MARKER, reviewerId: ID, organizationId: ID, documentId: ID, tags: [MARKER] });
  }
  agentIds.agent = (
    await client.agents.createAgent({
      name: MARKER,
      description: MARKER,
      enabled: true,
      instructions: MARKER,
      contextGathering: { strategies: ['web-page-text'] },
      execution: {},
      metadata: { [MARKER]: MARKER },
    })
  ).data.agentId;
  await client.agents.createAgentGroup({ groupId: ID, name: MARKER, agentIds: [agentIds.agent] });
});
afterAll(async () => {
  await server?.close();
  await closeReceivers();
});

describe('another workspace sees nothing of workspace A', () => {
  it('covers every read operation of the contract', () => {
    const reads = Object.values(contract)
      .flatMap((group) => Object.keys(group))
      .filter((name) => name.startsWith('get'));
    expect(READS.map((r) => r.name).sort()).toEqual(reads.sort());
  });

  for (const read of READS) {
    it(read.name, async () => {
      const own = await server.post(read.path, { data: read.data(a) }, read.headers(a));
      expect(own.status).toBe(200);
      if (read.name === 'getPermissions') expect(own.body.result.data[ID].context).toEqual({ accessFields: [`team:${MARKER}`] });
      // A's own read shows the marker where A's data holds it: B's not showing it proves something.
      if (read.name.startsWith('getWebhook') && read.name !== 'getWebhookEndpointSecret') expect(JSON.stringify(own.body)).toContain(MARKER);
      // (Versions and analytics are numbers and times: no marker to carry.)
      if (read.name.startsWith('getAgent') && read.name !== 'getAgentVersions' && read.name !== 'getAgentAnalytics') expect(JSON.stringify(own.body)).toContain(MARKER);
      if (read.name === 'getAgentAnalytics') expect(own.body.result.data.allTime.executions).toBe(1);
      const res = await server.post(read.path, { data: read.data(a) }, read.headers(b));
      expect(JSON.stringify(res.body)).not.toContain(MARKER);
      expect(JSON.stringify(res.body)).not.toContain(a.apiKey);
      expect(JSON.stringify(res.body)).not.toContain(a.authToken);
      if (NOT_FOUND_FOR_B.includes(read.name)) expect(res.body.error.status).toBe('NOT_FOUND');
      if (read.name === 'getAgentAnalytics') expect(res.body.result.data.allTime.executions).toBe(0);
    });
  }
});

describe('another workspace cannot change workspace A', () => {
  const writes: Array<[string, unknown]> = [
    ['/v2/commentannotations/update', { organizationId: ID, documentId: ID, annotationIds: [ID], actionUser: { userId: ID }, markAs: 'read' }],
    ['/v2/commentannotations/delete', { organizationId: ID, documentId: ID, annotationIds: [ID], actionUser: { userId: ID } }],
    ['/v2/commentannotations/comments/add', { organizationId: ID, documentId: ID, annotationId: ID, commentData: [{ commentText: 'x', from: { userId: ID } }] }],
    ['/v2/commentannotations/comments/update', { organizationId: ID, documentId: ID, annotationId: ID, commentId: ID, actionUser: { userId: ID }, updatedData: { commentText: 'x' } }],
    ['/v2/commentannotations/comments/delete', { organizationId: ID, documentId: ID, annotationId: ID, commentIds: [ID], actionUser: { userId: ID } }],
    ['/v2/commentannotations/comments/reactions/add', { organizationId: ID, documentId: ID, annotationId: ID, commentId: ID, icon: 'x', from: { userId: ID } }],
    ['/v2/commentannotations/comments/reactions/delete', { organizationId: ID, documentId: ID, annotationId: ID, commentId: ID, icon: 'x', from: { userId: ID } }],
    ['/v2/organizations/documents/delete', { organizationId: ID, documentId: ID }],
    ['/v2/organizations/documents/update', { organizationId: ID, documentId: ID, documentName: 'x' }],
    ['/v2/organizations/folders/delete', { organizationId: ID, folderId: ID }],
    ['/v2/organizations/delete', { organizationId: ID }],
    ['/v2/organizations/documents/migrate', { organizationId: ID, documentId: ID, newDocumentId: `${ID}-b` }],
    ['/v2/crdt/add', { organizationId: ID, documentId: ID, editorId: ID, type: 'text', data: 'x' }],
    ['/v2/crdt/update', { organizationId: ID, documentId: ID, editorId: ID, type: 'map', data: {} }],
    ['/v2/crdt/delete', { organizationId: ID, documentId: ID, editorId: ID }],
    ['/v2/livestate/broadcast', { organizationId: ID, documentId: ID, liveStateDataId: ID, data: 'x' }],
    ['/v2/presence/add', { organizationId: ID, documentId: ID, user: { userId: `${ID}-b` } }],
    ['/v2/presence/update', { organizationId: ID, documentId: ID, userId: ID, state: {} }],
    ['/v2/presence/delete', { organizationId: ID, documentId: ID, userIds: [ID] }],
  ];
  /** Writes naming A's webhook endpoint (and message): resolved when the tests run. */
  const webhookWrites: Array<[string, () => unknown]> = [
    ['/v2/workspace/advancedwebhook/endpoints/update', () => ({ endpointId: webhookIds.endpoint, url: 'http://127.0.0.1:1/stolen', disabled: true })],
    ['/v2/workspace/advancedwebhook/endpoints/delete', () => ({ endpointId: webhookIds.endpoint })],
    ['/v2/workspace/advancedwebhook/endpoints/secret/rotate', () => ({ endpointId: webhookIds.endpoint })],
    ['/v2/workspace/advancedwebhook/endpoints/test', () => ({ endpointId: webhookIds.endpoint })],
    ['/v2/workspace/advancedwebhook/messages/resend', () => ({ endpointId: webhookIds.endpoint, messageId: webhookIds.message })],
  ];
  it.each(writes)('%s finds nothing of A', async (path, data) => {
    const res = await server.post(path, { data }, appHeaders(b));
    expect([res.status, res.body.error?.status]).toEqual([404, 'NOT_FOUND']);
  });

  it.each(webhookWrites)("%s finds nothing of A's webhooks and leaves them", async (path, data) => {
    const before = await server.post('/v2/workspace/advancedwebhook/endpoints/get', { data: { endpointId: webhookIds.endpoint } }, appHeaders(a));
    const secret = await server.post('/v2/workspace/advancedwebhook/endpoints/secret/get', { data: { endpointId: webhookIds.endpoint } }, appHeaders(a));
    const res = await server.post(path, { data: data() }, appHeaders(b));
    expect([res.status, res.body.error?.status]).toEqual([404, 'NOT_FOUND']);
    expect(await server.post('/v2/workspace/advancedwebhook/endpoints/get', { data: { endpointId: webhookIds.endpoint } }, appHeaders(a))).toMatchObject({ body: before.body });
    expect(await server.post('/v2/workspace/advancedwebhook/endpoints/secret/get', { data: { endpointId: webhookIds.endpoint } }, appHeaders(a))).toMatchObject({ body: secret.body });
    const messages = await server.post('/v2/workspace/advancedwebhook/messages/get', { data: { endpointId: webhookIds.endpoint } }, appHeaders(a));
    expect(messages.body.result.data.map((m: { messageId: string; status: string }) => [m.messageId, m.status])).toEqual([[webhookIds.message, 'succeeded']]);
  });

  it("B's own endpoint list never shows A's endpoints", async () => {
    const client = server.client(b);
    await client.webhooks.updateAdvancedWebhookConfig({ isEnabled: true });
    // A's uid: free for B (ALREADY_EXISTS would tell B that A uses it).
    const own = (await client.webhooks.createWebhookEndpoint({ url: 'http://127.0.0.1:1/b', uid: MARKER })).data;
    const res = await server.post('/v2/workspace/advancedwebhook/endpoints/get', { data: {} }, appHeaders(b));
    expect(res.body.result.data.map((e: { id: string }) => e.id)).toEqual([own.id]);
    await client.webhooks.deleteWebhookEndpoint({ endpointId: own.id });
    await client.webhooks.updateAdvancedWebhookConfig({ isEnabled: false });
  });

  it("B adding users to a group of the same name reports A's group as missing, per user", async () => {
    const res = await server.post('/v2/organizations/usergroups/users/add', { data: { organizationId: ID, organizationUserGroupId: ID, userIds: [ID] } }, appHeaders(b));
    expect(res.status).toBe(200);
    expect(res.body.result.data[ID]).toMatchObject({ success: false, message: expect.stringMatching(/does not exist/) });
  });

  it("B marking or deleting A's notification finds nothing and leaves it", async () => {
    const update = await server.post('/v2/notifications/update', { data: { organizationId: ID, userId: ID, notificationIds: [ID], read: true } }, appHeaders(b));
    expect(update.body.result.data[ID].success).toBe(false);
    const remove = await server.post('/v2/notifications/delete', { data: { organizationId: ID, notificationIds: [ID] } }, appHeaders(b));
    expect(remove.body.result.data[ID].success).toBe(false);
    const own = await server.post('/v2/notifications/get', { data: { organizationId: ID, userId: ID } }, appHeaders(a));
    expect(own.body.result.data.map((n: { id: string; readByUserIds: object }) => [n.id, n.readByUserIds])).toEqual([[ID, {}]]);
  });

  it('B deleting users in an organization of the same name leaves A untouched', async () => {
    const res = await server.post('/v1/users/delete', { data: { organizationId: ID, userIds: [ID] } }, appHeaders(b));
    expect(res.body.result.data[ID].success).toBe(false);
    const own = await server.post('/v2/users/get', { data: { organizationId: ID } }, appHeaders(a));
    expect(own.body.result.data.map((u: { userId: string }) => u.userId)).toEqual([ID]);
    const doc = await server.post('/v2/organizations/documents/get', { data: { organizationId: ID } }, appHeaders(a));
    expect(doc.body.result.data).toHaveLength(1);
  });
});

describe('Suggest Decision (a read whose name does not start with get)', () => {
  it("never draws on workspace A's judgments for B, in any scope", async () => {
    const data = { query: `${MARKER} vendor contract`, organizationId: ID, documentId: ID };
    const own = await server.post('/v2/memory/suggest', { data }, appHeaders(a));
    expect(own.body.result.primary).toMatchObject({ recommendation: 'approve', basedOn: 2, topReasons: [MARKER] });
    for (const scope of [data, { query: data.query, organizationId: ID }, { query: data.query }]) {
      const res = await server.post('/v2/memory/suggest', { data: scope }, appHeaders(b));
      expect([res.status, res.body]).toEqual([200, { result: { primary: null, conflict: null } }]);
    }
    // B's own judgment with the same IDs and words: B's alone.
    await server.post(
      '/v2/memory/judgments/add',
      { data: { subject: 'vendor contract', decision: 'reject', reason: 'theirs', reviewerId: ID, organizationId: ID, documentId: ID } },
      appHeaders(b),
    );
    const res = await server.post('/v2/memory/suggest', { data }, appHeaders(b));
    expect(res.body.result.primary).toMatchObject({ recommendation: 'reject', basedOn: 1, topReasons: ['theirs'] });
    expect(JSON.stringify(res.body)).not.toContain(MARKER);
  });
});
