// Delete Activities: per-ID answers.
import { describe, expect, it } from 'vitest';
import { expectCollabError } from '../../helpers/credentials.js';
import { ORG, client, record, useActivitiesServer } from './fixture.js';

useActivitiesServer();

describe('Delete Activities', () => {
  it('deletes by ID and answers per ID', async () => {
    const added = (await client.activities.addActivities({ organizationId: ORG, activities: [record(), record(), record()] })).data;
    const { data } = await client.activities.deleteActivities({ organizationId: ORG, activityIds: [added[0]!.id, added[2]!.id, 'act_nope'] });
    expect(data).toEqual({
      [added[0]!.id]: { success: true, message: 'Activity deleted.' },
      [added[2]!.id]: { success: true, message: 'Activity deleted.' },
      act_nope: { success: false, message: expect.stringMatching(/does not exist/) },
    });
    expect((await client.activities.getActivityLogs({ organizationId: ORG })).data.map((a) => a.id)).toEqual([added[1]!.id]);
    await expectCollabError(client.activities.deleteActivities({ organizationId: ORG, activityIds: [] }), 'INVALID_ARGUMENT', /activityIds/);
    await expectCollabError(
      client.activities.deleteActivities({ organizationId: ORG, activityIds: Array.from({ length: 31 }, (_, i) => `a${i}`) }),
      'INVALID_ARGUMENT',
      /activityIds/,
    );
  });
});
