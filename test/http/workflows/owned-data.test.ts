// A document's workflow executions follow it: Migrate Documents moves them
// (steps, events with them) to the new document ID, deleting the document or
// its organization deletes them, erasing a user deletes their reviewer
// decisions; definitions belong to the application and stay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';
import { reviewDefinition } from './fixtures.js';

const ORG = 'owned-org';
let server: TestServer;
let a: WorkspaceCredentials;
let client: Client;
const runJobs = () => server.running.services.jobs.runDue();

async function dispatchOn(documentId: string): Promise<string> {
  await server.post('/v2/organizations/documents/add', { data: { organizationId: ORG, documentId } }, appHeaders(a));
  const { executionId } = (await client.workflowExecutions.dispatchWorkflowExecution({ definitionId: 'owned-review', organizationId: ORG, documentId })).data;
  await runJobs();
  return executionId;
}

beforeAll(async () => {
  server = await startTestServer();
  a = await server.workspace();
  client = server.client(a);
  await server.post('/v2/organizations/add', { data: { organizationId: ORG } }, appHeaders(a));
  await client.workflowDefinitions.createWorkflowDefinition(reviewDefinition('owned-review', [{ userId: 'u-ana', mandatory: true }]));
});
afterAll(async () => {
  await server?.close();
});

describe('workflow executions as owned data', () => {
  it('move with Migrate Documents, steps and events with them, and a definition scoped to the document with them', async () => {
    const executionId = await dispatchOn('doc-old');
    await client.workflowDefinitions.createWorkflowDefinition({ ...reviewDefinition('scoped-review', [{ userId: 'u-ana' }]), scope: { level: 'document', organizationId: ORG, documentId: 'doc-old' } });
    const { migrationId } = (await client.migrations.migrateDocuments({ organizationId: ORG, documentId: 'doc-old', newDocumentId: 'doc-new' })).data;
    await runJobs();
    expect((await client.migrations.getMigrateDocumentsStatus({ organizationId: ORG, migrationId })).data.status).toBe('completed');
    const moved = (await client.workflowExecutions.getWorkflowExecution({ executionId })).data;
    expect(moved).toMatchObject({ documentId: 'doc-new', status: 'running', steps: [{ nodeId: 'review', status: 'waiting' }] });
    expect((await client.workflowExecutions.listWorkflowExecutions({ organizationId: ORG, documentId: 'doc-new' })).data.map((e) => e.executionId)).toEqual([executionId]);
    expect((await client.workflowExecutions.listWorkflowExecutions({ organizationId: ORG, documentId: 'doc-old' })).data).toEqual([]);
    expect((await client.workflowDefinitions.getWorkflowDefinition({ definitionId: 'scoped-review' })).data.scope).toEqual({ level: 'document', organizationId: ORG, documentId: 'doc-new' });
    expect((await client.workflowExecutions.dispatchWorkflowExecution({ definitionId: 'scoped-review' })).data.deduplicated).toBe(false);
    // It goes on where it was.
    await client.workflowSteps.recordWorkflowReviewerDecision({ executionId, stepId: moved.steps[0]!.stepId, reviewerId: 'u-ana', decision: 'approve' });
    await runJobs();
    expect((await client.workflowExecutions.getWorkflowExecution({ executionId })).data.status).toBe('completed');
  });

  it('erasing a reviewer deletes their decisions', async () => {
    const db = server.running.database.db;
    const decided = async () => (await db.workflowReviewerDecision.findMany({ where: { reviewerId: 'u-ana' } })).length;
    expect(await decided()).toBeGreaterThan(0);
    const { jobId } = (await client.userData.deleteAllUserData({ userId: 'u-ana' })).data;
    await runJobs();
    expect((await client.userData.getDeleteAllUserDataStatus({ jobId })).data.status).toBe('completed');
    expect(await decided()).toBe(0);
  });

  it('go with their document and with their organization; the definition stays', async () => {
    const onDocument = await dispatchOn('doc-gone');
    const kept = await dispatchOn('doc-kept');
    await server.post('/v2/organizations/documents/delete', { data: { organizationId: ORG, documentId: 'doc-gone' } }, appHeaders(a));
    await runJobs();
    await expectCollabError(client.workflowExecutions.getWorkflowExecution({ executionId: onDocument }), 'NOT_FOUND');
    expect((await client.workflowExecutions.getWorkflowExecution({ executionId: kept })).data.documentId).toBe('doc-kept');

    await server.post('/v2/organizations/delete', { data: { organizationId: ORG } }, appHeaders(a));
    await runJobs();
    await expectCollabError(client.workflowExecutions.getWorkflowExecution({ executionId: kept }), 'NOT_FOUND');
    expect((await client.workflowDefinitions.getWorkflowDefinition({ definitionId: 'owned-review' })).data.status).toBe('active');
    // Bound to the organization's document, it could start nothing more.
    expect((await client.workflowDefinitions.getWorkflowDefinition({ definitionId: 'scoped-review' })).data.status).toBe('tombstoned');
  });
});
