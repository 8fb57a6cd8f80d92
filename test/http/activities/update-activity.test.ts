// Update Activity: the fields given, and the domain errors.
import { describe, expect, it } from 'vitest';
import { expectCollabError } from '../../helpers/credentials.js';
import { ORG, client, record, useActivitiesServer } from './fixture.js';

useActivitiesServer();

describe('Update Activity', () => {
  it('changes the given fields only and keeps the timestamp and document', async () => {
    const [added] = (await client.activities.addActivities({ organizationId: ORG, activities: [record()] })).data;
    const { data } = await client.activities.updateActivity({
      organizationId: ORG,
      activityId: added!.id,
      displayMessageTemplate: '{{actionUser.name}} rejected {{invoice}}',
      actionUser: { userId: 'bob' },
    });
    expect(data).toEqual({ ...added, displayMessageTemplate: '{{actionUser.name}} rejected {{invoice}}', actionUser: { userId: 'bob' } });
    // The acting user is what the userId filter reads.
    expect((await client.activities.getActivityLogs({ organizationId: ORG, userId: 'bob' })).data).toEqual([data]);
    expect((await client.activities.getActivityLogs({ organizationId: ORG, userId: 'ada' })).data).toEqual([]);
    const again = await client.activities.updateActivity({ organizationId: ORG, activityId: added!.id, displayMessageTemplateData: { invoice: 'Invoice 8' }, featureType: 'crdt', actionType: 'crdt.x', targetEntityId: 'other' });
    expect(again.data).toMatchObject({ displayMessageTemplateData: { invoice: 'Invoice 8' }, featureType: 'crdt', actionType: 'crdt.x', targetEntityId: 'other', timestamp: added!.timestamp });
  });

  it('needs a field to change, and is NOT_FOUND for a record the organization does not have', async () => {
    const [added] = (await client.activities.addActivities({ organizationId: ORG, activities: [record()] })).data;
    await expectCollabError(client.activities.updateActivity({ organizationId: ORG, activityId: added!.id }), 'INVALID_ARGUMENT', /at least one field/);
    await expectCollabError(client.activities.updateActivity({ organizationId: ORG, activityId: 'act_nope', actionType: 'x' }), 'NOT_FOUND', /act_nope/);
    await client.organizations.addOrganization({ organizationId: 'other-org' });
    await expectCollabError(client.activities.updateActivity({ organizationId: 'other-org', activityId: added!.id, actionType: 'x' }), 'NOT_FOUND', /other-org/);
  });
});
