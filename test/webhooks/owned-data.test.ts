// Webhook messages in the owned-data registry: a message follows its migrated
// document (its column and its payload, so a resend names the new ID) and goes
// when its event names an erased user, whoever acted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../sdk/index.js';
import { receiverEndpoint, startWebhookServer, type WebhookTestServer } from '../helpers/webhook-server.js';

const ORG = 'wh-org';
let server: WebhookTestServer;
beforeAll(async () => {
  server = await startWebhookServer();
});
afterAll(() => server?.close());

const runJobs = () => server.running.services.jobs.runDue();

async function messagesOf(client: Client, endpointId: string) {
  const all: { messageId: string; payload: Record<string, unknown> }[] = [];
  let pageToken: string | undefined;
  do {
    const page = await client.webhooks.getWebhookMessages({ endpointId, ...(pageToken ? { pageToken } : {}) });
    all.push(...page.data.map(({ messageId, payload }) => ({ messageId, payload })));
    pageToken = page.pageToken ?? undefined;
  } while (pageToken);
  return all;
}

const documentOf = (payload: Record<string, unknown>) => (payload.metadata as { documentId: string | null }).documentId;
const naming = (userId: string) => (message: { payload: Record<string, unknown> }) => JSON.stringify(message.payload.data).includes(`"userId":"${userId}"`);

describe('webhook messages and owned data', () => {
  it('follow a migrated document in their column and payload, and go with a user their event names', async () => {
    const { client } = await server.webhookApp();
    const endpoint = await receiverEndpoint(client);
    await client.comments.addCommentAnnotations({
      organizationId: ORG,
      documentId: 'draft',
      commentAnnotations: [{ annotationId: 'ann-t', from: { userId: 'ann' }, commentData: [{ commentId: 'a1', commentText: 'ann here' }] }],
    });
    await client.comments.addCommentAnnotations({
      organizationId: ORG,
      documentId: 'draft',
      commentAnnotations: [{ annotationId: 'bob-t', from: { userId: 'bob' }, commentData: [{ commentId: 'b1', commentText: 'bob here' }] }],
    });
    const before = await messagesOf(client, endpoint.id);
    const onDraft = before.filter((m) => documentOf(m.payload) === 'draft').map((m) => m.messageId).sort();
    expect(before.some(naming('ann'))).toBe(true);
    expect(before.some(naming('bob'))).toBe(true);

    const { migrationId } = (await client.migrations.migrateDocuments({ organizationId: ORG, documentId: 'draft', newDocumentId: 'final' })).data;
    await runJobs();
    expect((await client.migrations.getMigrateDocumentsStatus({ organizationId: ORG, migrationId })).data.status).toBe('completed');
    const moved = await messagesOf(client, endpoint.id);
    expect(moved.filter((m) => documentOf(m.payload) === 'draft')).toEqual([]);
    expect(moved.filter((m) => documentOf(m.payload) === 'final').map((m) => m.messageId).sort()).toEqual(onDraft);
    // Only metadata.documentId changes: the rest of each payload, its key order included, is as it was.
    const beforeById = new Map(before.map((m) => [m.messageId, m.payload]));
    for (const { messageId, payload } of moved) {
      const old = beforeById.get(messageId)!;
      const expected = documentOf(old) === 'draft' ? { ...old, metadata: { ...(old.metadata as object), documentId: 'final' } } : old;
      expect(JSON.stringify(payload)).toBe(JSON.stringify(expected));
    }

    const { jobId } = (await client.userData.deleteAllUserData({ userId: 'ann' })).data;
    await runJobs();
    expect((await client.userData.getDeleteAllUserDataStatus({ jobId })).data.status).toBe('completed');
    const left = await messagesOf(client, endpoint.id);
    expect(left.filter(naming('ann'))).toEqual([]);
    expect(left.map((m) => m.messageId).sort()).toEqual(moved.filter((m) => !naming('ann')(m)).map((m) => m.messageId).sort());
    expect(left.some(naming('bob'))).toBe(true);
  });
});
