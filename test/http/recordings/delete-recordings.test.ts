// Delete Recordings: per-ID answers.
import { describe, expect, it } from 'vitest';
import { expectCollabError } from '../../helpers/credentials.js';
import { ORG, client, recording, useRecordingsServer } from './fixture.js';

useRecordingsServer();

describe('Delete Recordings', () => {
  it('deletes by annotation ID and answers per ID', async () => {
    await client.recordings.addRecording(recording({ annotationId: 'keep' }));
    await client.recordings.addRecording(recording({ annotationId: 'drop' }));
    const { data } = await client.recordings.deleteRecordings({ organizationId: ORG, annotationIds: ['drop', 'never'] });
    expect(data).toEqual({ drop: { success: true, message: 'Recording deleted.' }, never: { success: false, message: expect.stringMatching(/does not exist/) } });
    expect((await client.recordings.getRecordings({ organizationId: ORG })).data.map((r) => r.annotationId)).toEqual(['keep']);
    await client.organizations.addOrganization({ organizationId: 'other-org' });
    expect((await client.recordings.deleteRecordings({ organizationId: 'other-org', annotationIds: ['keep'] })).data.keep!.success).toBe(false);
    await expectCollabError(client.recordings.deleteRecordings({ organizationId: ORG, annotationIds: [] }), 'INVALID_ARGUMENT', /annotationIds/);
  });
});
