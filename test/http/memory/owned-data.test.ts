// Judgments through the operations built on the owned-data registry: they
// follow a migrated document, go with a deleted document, folder or
// organization and with an erased reviewer, and Get All User Data lists a
// reviewer's judgments. Each change moves the revision, so suggestions follow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TAddJudgmentData } from '../../../contract/memory/add-judgment.js';
import { testClock } from '../../../server/lib/clock.js';
import type { Client } from '../../../sdk/index.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

const ORG = 'm-org';
const clock = testClock(Date.UTC(2026, 7, 1));
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
let appId: string;

const judgment = (judgmentId: string, overrides: Partial<TAddJudgmentData> = {}): TAddJudgmentData => ({
  judgmentId,
  subject: 'Publish the launch announcement',
  decision: 'approve',
  reason: 'Legal signed off',
  reviewerId: 'ann',
  organizationId: ORG,
  ...overrides,
});
const ids = async (filters: Parameters<Client['memory']['getJudgments']>[0] = {}) => (await client.memory.getJudgments(filters)).data.map((j) => j.judgmentId).sort();
const revision = async () => (await server.running.database.db.judgmentRevision.findUnique({ where: { apiKeyId: appId } }))!;
/** The revision row's counts are those of the rows: removals through owned data decrement both exactly. */
async function expectExactCounts() {
  const rows = await server.running.database.db.judgment.aggregate({ where: { apiKeyId: appId }, _count: true, _sum: { postings: true } });
  expect(await revision()).toMatchObject({ size: rows._count, postings: rows._sum.postings ?? 0 });
}
const suggestIn = (documentId: string) => client.memory.suggestDecision({ query: 'launch announcement', organizationId: ORG, documentId });

beforeAll(async () => {
  server = await startTestServer({}, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  appId = (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', ws.apiKey)).apiKey.id;
  await client.organizations.addOrganization({ organizationId: ORG });
  await client.organizations.addFolder({ organizationId: ORG, folderId: 'f1' });
  for (const documentId of ['d1', 'd2']) await client.organizations.addDocument({ organizationId: ORG, documentId });
  await client.organizations.addDocument({ organizationId: ORG, documentId: 'd3', folderId: 'f1' });
});
afterAll(() => server?.close());

describe('judgments and owned data', () => {
  it("Get All User Data lists the reviewer's judgments of the organization and of the whole workspace, 100 per page, oldest first", async () => {
    const start = clock.nowMs() - 1_000_000;
    for (let i = 0; i < 101; i++) {
      await client.memory.addJudgment(judgment(`ann-${String(i).padStart(3, '0')}`, { decidedAt: start + i, documentId: i % 2 ? 'd1' : undefined }));
    }
    await client.memory.addJudgment(judgment('ann-ws', { organizationId: undefined, decidedAt: start + 500 }));
    await client.memory.addJudgment(judgment('ann-other-org', { organizationId: 'elsewhere', decidedAt: start + 501 }));
    await client.memory.addJudgment(judgment('bob-1', { reviewerId: 'bob' }));
    const first = await client.userData.getAllUserData({ organizationId: ORG, userId: 'ann' });
    expect(first.data.judgments).toHaveLength(100);
    expect(first.data.judgments[1]).toEqual({
      judgmentId: 'ann-001',
      subject: 'Publish the launch announcement',
      decision: 'approve',
      reason: 'Legal signed off',
      reviewerId: 'ann',
      organizationId: ORG,
      documentId: 'd1',
      tags: [],
      decidedAt: start + 1,
      createdAt: expect.any(Number),
    });
    const second = await client.userData.getAllUserData({ organizationId: ORG, userId: 'ann', pageToken: first.nextPageToken! });
    expect(second.data.judgments.map((j) => j.judgmentId)).toEqual(['ann-100', 'ann-ws']);
    expect(second.nextPageToken).toBeNull();
    expect((await client.userData.getAllUserData({ organizationId: ORG, userId: 'bob' })).data.judgments.map((j) => j.judgmentId)).toEqual(['bob-1']);
    await client.memory.deleteJudgments({ judgmentIds: [...first.data.judgments, ...second.data.judgments].map((j) => j.judgmentId).slice(0, 30) });
  });

  it('Migrate Documents moves the judgments of the document to the new ID', async () => {
    await client.memory.addJudgment(judgment('m1', { documentId: 'd2', decision: 'reject', reason: 'Not ready' }));
    await client.memory.addJudgment(judgment('m2', { documentId: 'd2', decision: 'reject', reason: 'Not ready' }));
    await client.memory.addJudgment(judgment('m3', { documentId: 'd2', decision: 'reject', reason: 'Not ready' }));
    expect((await suggestIn('d2')).primary).toMatchObject({ scope: 'document', recommendation: 'reject' });
    const before = await revision();
    const { migrationId } = (await client.migrations.migrateDocuments({ organizationId: ORG, documentId: 'd2', newDocumentId: 'd2-new' })).data;
    await server.running.services.jobs.runDue();
    expect((await client.migrations.getMigrateDocumentsStatus({ organizationId: ORG, migrationId })).data.status).toBe('completed');
    expect(await ids({ organizationId: ORG, documentId: 'd2-new' })).toEqual(['m1', 'm2', 'm3']);
    expect(await ids({ organizationId: ORG, documentId: 'd2' })).toEqual([]);
    expect(await revision()).toMatchObject({ revision: before.revision + 1, size: before.size });
    expect((await suggestIn('d2-new')).primary).toMatchObject({ scope: 'document', recommendation: 'reject', basedOn: 3 });
    expect((await suggestIn('d2')).primary!.scope).toBe('organization');
  });

  it('Delete Document and Delete Folder delete the judgments of their documents', async () => {
    await client.memory.addJudgment(judgment('doc-1', { documentId: 'd1' }));
    await client.memory.addJudgment(judgment('folder-1', { documentId: 'd3' }));
    const before = await revision();
    await client.organizations.deleteDocument({ organizationId: ORG, documentId: 'd1' });
    expect(await ids({ organizationId: ORG, documentId: 'd1' })).toEqual([]);
    const afterDocument = await revision();
    expect(afterDocument.revision).toBe(before.revision + 1);
    expect(afterDocument.size).toBeLessThan(before.size);
    await client.organizations.deleteFolder({ organizationId: ORG, folderId: 'f1' });
    expect(await ids({ organizationId: ORG, documentId: 'd3' })).toEqual([]);
    expect(await revision()).toMatchObject({ revision: afterDocument.revision + 1, size: afterDocument.size - 1 });
    expect(await ids()).toContain('m1');
  });

  it('Delete All User Data deletes the reviewer\'s judgments everywhere', async () => {
    await client.memory.addJudgment(judgment('eve-1', { reviewerId: 'eve', organizationId: undefined }));
    await client.memory.addJudgment(judgment('eve-2', { reviewerId: 'eve', organizationId: 'elsewhere', documentId: 'x' }));
    await client.memory.addJudgment(judgment('carl-1', { reviewerId: 'carl' }));
    const before = await revision();
    const { jobId } = (await client.userData.deleteAllUserData({ userId: 'eve' })).data;
    await server.running.services.jobs.runDue();
    expect((await client.userData.getDeleteAllUserDataStatus({ jobId })).data.status).toBe('completed');
    expect(await ids({ reviewerId: 'eve' })).toEqual([]);
    expect(await ids({ reviewerId: 'carl' })).toEqual(['carl-1']);
    expect(await revision()).toMatchObject({ revision: before.revision + 1, size: before.size - 2 });
    // Erasing a user without judgments leaves the revision alone (no index rebuilt for nothing).
    await client.userData.deleteAllUserData({ userId: 'nobody' });
    await server.running.services.jobs.runDue();
    expect((await revision()).revision).toBe(before.revision + 1);
    await expectExactCounts();
  });

  it('Delete Organization deletes its judgments, not the workspace-wide ones', async () => {
    await client.memory.addJudgment(judgment('ws-1', { organizationId: undefined }));
    const before = await revision();
    await client.organizations.deleteOrganization({ organizationId: ORG });
    expect(await ids({ organizationId: ORG })).toEqual([]);
    expect(await ids()).toEqual(['ann-other-org', 'ann-ws', 'ws-1']);
    const after = await revision();
    expect(after.revision).toBe(before.revision + 1);
    expect(after.size).toBe(await server.running.database.db.judgment.count({ where: { apiKeyId: appId } }));
    await expectExactCounts();
  });
});
