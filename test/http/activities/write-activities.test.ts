// Rules for every write of activity records (Add, Update and Delete
// Activities): another application's records are out of reach, and an
// immutable log refuses them all.
import { describe, expect, it } from 'vitest';
import { expectCollabError } from '../../helpers/credentials.js';
import { ORG, server, client, record, activityEvents, useActivitiesServer } from './fixture.js';

useActivitiesServer();

describe('another application', () => {
  it('cannot update or delete these records, even with an organization of the same ID', async () => {
    const [added] = (await client.activities.addActivities({ organizationId: ORG, activities: [record()] })).data;
    const other = server.client(await server.workspace());
    await other.organizations.addOrganization({ organizationId: ORG });
    await expectCollabError(other.activities.updateActivity({ organizationId: ORG, activityId: added!.id, actionType: 'stolen' }), 'NOT_FOUND');
    expect((await other.activities.deleteActivities({ organizationId: ORG, activityIds: [added!.id] })).data[added!.id]!.success).toBe(false);
    expect((await other.activities.getActivityLogs({ organizationId: ORG })).data).toEqual([]);
    expect((await client.activities.getActivityLogs({ organizationId: ORG })).data).toEqual([added]);
  });
});

describe('an immutable activity log', () => {
  it('refuses Add, Update and Delete Activities with FAILED_PRECONDITION and changes nothing', async () => {
    const [added] = (await client.activities.addActivities({ organizationId: ORG, activities: [record()] })).data;
    await client.workspace.updateActivityConfig({ immutable: true });
    await expectCollabError(client.activities.addActivities({ organizationId: ORG, activities: [record()] }), 'FAILED_PRECONDITION', /immutable/);
    await expectCollabError(client.activities.updateActivity({ organizationId: ORG, activityId: added!.id, actionType: 'x' }), 'FAILED_PRECONDITION', /immutable/);
    await expectCollabError(client.activities.deleteActivities({ organizationId: ORG, activityIds: [added!.id] }), 'FAILED_PRECONDITION', /immutable/);
    expect((await client.activities.getActivityLogs({ organizationId: ORG })).data).toEqual([added]);
    expect(await activityEvents()).toHaveLength(1);

    // Turning immutability off again allows changes.
    await client.workspace.updateActivityConfig({ immutable: false });
    expect((await client.activities.deleteActivities({ organizationId: ORG, activityIds: [added!.id] })).data[added!.id]!.success).toBe(true);
  });
});
