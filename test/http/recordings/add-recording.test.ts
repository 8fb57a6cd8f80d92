// Add Recording: the recorder annotation of the specification, recorder.done
// in the same transaction, validation and domain errors.
import { describe, expect, it } from 'vitest';
import type { TAddRecordingData } from '../../../contract/recordings/add-recording.js';
import { eventFromRow } from '../../../server/platform/events.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { ORG, clock, server, ws, client, appId, attachment, recording, useRecordingsServer } from './fixture.js';

useRecordingsServer();

describe('Add Recording', () => {
  it('stores the recorder annotation, computes the HH:MM:SS display, and publishes recorder.done in the same transaction', async () => {
    const { data } = await client.recordings.addRecording(recording());
    expect(data).toEqual({
      type: 'recorder',
      annotationId: expect.stringMatching(/^rec_/),
      recordingType: 'screen',
      mode: 'floating',
      metadata: { apiKey: ws.apiKey, organizationId: ORG, documentId: 'doc-1' },
      recordedTime: { duration: 3_723_500, display: '01:02:03' },
      displayName: 'Walkthrough',
      from: { userId: 'ada', name: 'Ada', email: 'ada@example.com' },
      attachments: [attachment],
      latestVersion: 1,
      createdAt: clock.nowMs(),
    });
    const events = (await server.running.database.db.domainEvent.findMany({ where: { apiKeyId: appId } })).map(eventFromRow);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'recorder.done',
        organizationId: ORG,
        documentId: 'doc-1',
        actor: { userId: 'ada', name: 'Ada', email: 'ada@example.com' },
        payload: { recording: { ...data, metadata: { ...data.metadata, apiKey: '' } } },
      }),
    ]);
    expect((await client.recordings.getRecordings({ organizationId: ORG })).data).toEqual([data]);
  });

  it('keeps a given display, annotationId and latestVersion; the display is whole seconds of the duration', async () => {
    const given = await client.recordings.addRecording(recording({ annotationId: 'my-rec', recordedTime: { duration: 999, display: '00:00:01' }, latestVersion: 3, attachments: [] }));
    expect(given.data).toMatchObject({ annotationId: 'my-rec', recordedTime: { duration: 999, display: '00:00:01' }, latestVersion: 3, attachments: [] });
    const longest = await client.recordings.addRecording(recording({ recordedTime: { duration: 359_999_999 } }));
    expect(longest.data.recordedTime).toEqual({ duration: 359_999_999, display: '99:59:59' });
    const zero = await client.recordings.addRecording(recording({ recordedTime: { duration: 0 } }));
    expect(zero.data.recordedTime.display).toBe('00:00:00');
  });

  it('is ALREADY_EXISTS for a taken annotationId, also when two adds race', async () => {
    await client.recordings.addRecording(recording({ annotationId: 'taken' }));
    await expectCollabError(client.recordings.addRecording(recording({ annotationId: 'taken' })), 'ALREADY_EXISTS', /taken/);
    const outcomes = await Promise.allSettled(Array.from({ length: 4 }, () => client.recordings.addRecording(recording({ annotationId: 'raced' }))));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as { status: string }).status).toBe('ALREADY_EXISTS');
    expect(await server.running.database.db.domainEvent.count({ where: { apiKeyId: appId } })).toBe(2);
  });

  it('is NOT_FOUND for an unknown organization or document', async () => {
    await expectCollabError(client.recordings.addRecording(recording({ organizationId: 'nope' })), 'NOT_FOUND', /organization nope/);
    await expectCollabError(client.recordings.addRecording(recording({ documentId: 'ghost' })), 'NOT_FOUND', /document ghost/);
    expect(await server.running.database.db.recording.count()).toBe(0);
  });

  it('accepts only bounded http(s) attachment URLs, stored as given and never fetched', async () => {
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'ftp://files.example.com/x', '/relative.webm', 'https://', `https://x.example.com/${'a'.repeat(2048)}`]) {
      await expectCollabError(client.recordings.addRecording(recording({ attachments: [{ ...attachment, url }] })), 'INVALID_ARGUMENT', /attachments\.0\.url|attachments\[0\]\.url/);
    }
    // A URL no server answers at: stored as given, since the server never fetches it.
    const unreachable = 'http://127.0.0.1:1/never-fetched.webm?x=%20y#frag';
    const { data } = await client.recordings.addRecording(recording({ attachments: [{ ...attachment, url: unreachable }] }));
    expect(data.attachments[0]!.url).toBe(unreachable);
  });

  it('validates the other fields and bounds', async () => {
    const bad = (overrides: Record<string, unknown>) => client.recordings.addRecording({ ...recording(), ...overrides } as TAddRecordingData);
    await expectCollabError(bad({ attachments: Array.from({ length: 21 }, () => attachment) }), 'INVALID_ARGUMENT', /attachments/);
    await expectCollabError(bad({ recordedTime: { duration: 1000, display: '1:00' } }), 'INVALID_ARGUMENT', /display/);
    await expectCollabError(bad({ recordedTime: { duration: 1000, display: '00:61:00' } }), 'INVALID_ARGUMENT', /display/);
    await expectCollabError(bad({ recordedTime: { display: '00:00:01' } }), 'INVALID_ARGUMENT', /duration/);
    await expectCollabError(bad({ from: undefined }), 'INVALID_ARGUMENT', /from/);
    await expectCollabError(bad({ type: 'recorder' }), 'INVALID_ARGUMENT', /type/);
    await expectCollabError(bad({ attachments: [{ ...attachment, extra: 1 }] }), 'INVALID_ARGUMENT', /extra/);
    await expectCollabError(bad({ annotationId: '__proto__' }), 'INVALID_ARGUMENT', /annotationId/);
  });
});
