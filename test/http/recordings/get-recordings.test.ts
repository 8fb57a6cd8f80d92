// Get Recordings: filters, keyset paging, and nothing of another application.
import { describe, expect, it } from 'vitest';
import { expectCollabError } from '../../helpers/credentials.js';
import { ORG, clock, server, client, recording, useRecordingsServer } from './fixture.js';

useRecordingsServer();

describe('Get Recordings', () => {
  it('lists oldest first, by document and by IDs (unknown IDs left out)', async () => {
    const a = (await client.recordings.addRecording(recording({ annotationId: 'a' }))).data;
    const b = (await client.recordings.addRecording(recording({ annotationId: 'b', documentId: 'doc-2' }))).data;
    clock.advance(5);
    const c = (await client.recordings.addRecording(recording({ annotationId: 'c' }))).data;
    const ids = (list: { annotationId: string }[]) => list.map((r) => r.annotationId);
    expect(ids((await client.recordings.getRecordings({ organizationId: ORG })).data)).toEqual(['a', 'b', 'c']);
    expect(ids((await client.recordings.getRecordings({ organizationId: ORG, documentId: 'doc-1' })).data)).toEqual(['a', 'c']);
    expect(ids((await client.recordings.getRecordings({ organizationId: ORG, recordingIds: ['c', 'b', 'nope'] })).data)).toEqual(['b', 'c']);
    expect((await client.recordings.getRecordings({ organizationId: ORG, documentId: 'doc-2', recordingIds: ['b', 'c'] })).data).toEqual([b]);
    expect([a.createdAt, c.createdAt]).toEqual([b.createdAt, b.createdAt + 5]);
  });

  it('pages without gaps or repeats while recordings are added, and refuses forged tokens and pageSize 0', async () => {
    for (let i = 0; i < 5; i++) await client.recordings.addRecording(recording({ annotationId: `p${i}` }));
    const seen: string[] = [];
    let pageToken: string | undefined;
    let added = 0;
    let round = 0;
    do {
      const page = await client.recordings.getRecordings({ organizationId: ORG, pageSize: 2, ...(pageToken ? { pageToken } : {}) });
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((r) => r.annotationId));
      pageToken = page.pageToken ?? undefined;
      // Same millisecond as rows already listed, with an ID that may sort before the cursor: listed at most once.
      await client.recordings.addRecording(recording({ annotationId: `a-same-ms-${round++}` }));
      clock.advance(1);
      if (added < 3) await client.recordings.addRecording(recording({ annotationId: `late${added++}` }));
    } while (pageToken);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.slice(0, 5)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);
    expect(seen).toEqual(expect.arrayContaining(['late0', 'late1', 'late2']));
    // In the order of a listing made afterwards.
    const final = (await client.recordings.getRecordings({ organizationId: ORG })).data.map((r) => r.annotationId);
    expect(final.filter((id) => seen.includes(id))).toEqual(seen);

    const { pageToken: token } = await client.recordings.getRecordings({ organizationId: ORG, pageSize: 1 });
    const [, tag] = token!.split('.');
    const forged = `${Buffer.from(JSON.stringify([0, ''])).toString('base64url')}.${tag}`;
    await expectCollabError(client.recordings.getRecordings({ organizationId: ORG, pageSize: 1, pageToken: forged }), 'INVALID_ARGUMENT', /pageToken/);
    await expectCollabError(client.recordings.getRecordings({ organizationId: ORG, documentId: 'doc-1', pageToken: token! }), 'INVALID_ARGUMENT', /pageToken/);
    await expectCollabError(client.recordings.getRecordings({ organizationId: ORG, pageSize: 0 }), 'INVALID_ARGUMENT', /data\.pageSize/);
    await expectCollabError(client.recordings.getRecordings({ organizationId: ORG, recordingIds: Array.from({ length: 31 }, (_, i) => `x${i}`) }), 'INVALID_ARGUMENT', /recordingIds/);
  });

  it("shows another application nothing, also in an organization and document of the same IDs", async () => {
    await client.recordings.addRecording(recording({ annotationId: 'mine' }));
    const other = server.client(await server.workspace());
    await other.organizations.addOrganization({ organizationId: ORG });
    await other.organizations.addDocument({ organizationId: ORG, documentId: 'doc-1' });
    expect((await other.recordings.getRecordings({ organizationId: ORG })).data).toEqual([]);
    expect((await other.recordings.getRecordings({ organizationId: ORG, recordingIds: ['mine'] })).data).toEqual([]);
    expect((await other.recordings.deleteRecordings({ organizationId: ORG, annotationIds: ['mine'] })).data.mine!.success).toBe(false);
    // The same annotationId is free in another application.
    expect((await other.recordings.addRecording(recording({ annotationId: 'mine' }))).data.annotationId).toBe('mine');
    expect((await client.recordings.getRecordings({ organizationId: ORG })).data.map((r) => r.annotationId)).toEqual(['mine']);
  });

  it('is NOT_FOUND for an unknown organization', async () => {
    await expectCollabError(client.recordings.getRecordings({ organizationId: 'nope' }), 'NOT_FOUND', /organization nope/);
  });
});
