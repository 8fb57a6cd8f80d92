// Add Activities: records, their activity.add events in the same
// transaction, validation and domain errors.
import { describe, expect, it } from 'vitest';
import { expectCollabError } from '../../helpers/credentials.js';
import { ORG, server, ws, client, appId, record, activityEvents, useActivitiesServer } from './fixture.js';

useActivitiesServer();

describe('Add Activities', () => {
  it('stores each record with a new ID and the time, and publishes one activity.add per record in the same transaction', async () => {
    const { data } = await client.activities.addActivities({
      organizationId: ORG,
      activities: [record(), record({ documentId: undefined, featureType: 'comment', actionType: 'comment.add', displayMessageTemplateData: undefined })],
    });
    expect(data).toHaveLength(2);
    expect(data[0]).toEqual({
      id: expect.stringMatching(/^act_/),
      featureType: 'custom',
      actionType: 'custom.approved',
      actionUser: { userId: 'ada', name: 'Ada', email: 'ada@example.com' },
      targetEntityId: 'invoice-7',
      displayMessageTemplate: '{{actionUser.name}} approved {{invoice}}',
      displayMessageTemplateData: { actionUser: { name: 'Ada' }, invoice: 'Invoice 7' },
      metadata: { apiKey: ws.apiKey, organizationId: ORG, documentId: 'doc-1' },
      timestamp: expect.any(Number),
    });
    expect(data[1]).toMatchObject({ featureType: 'comment', displayMessageTemplateData: {}, metadata: { apiKey: ws.apiKey, organizationId: ORG } });
    expect(data[1]!.metadata).not.toHaveProperty('documentId');

    const events = await activityEvents();
    expect(events.map((e) => e.payload)).toEqual(data.map((activity) => ({ activity: { ...activity, metadata: { ...activity.metadata, apiKey: '' } } })));
    expect(events[0]).toMatchObject({ type: 'activity.add', organizationId: ORG, documentId: 'doc-1', actor: { userId: 'ada', name: 'Ada', email: 'ada@example.com' } });
    expect(events[1]).toMatchObject({ documentId: null });

    const read = await client.activities.getActivityLogs({ organizationId: ORG, order: 'asc' });
    expect(read.data).toEqual(data);
  });

  it('never stores the API key: event payloads carry an empty metadata.apiKey', async () => {
    await client.activities.addActivities({ organizationId: ORG, activities: [record()] });
    const rows = await server.running.database.db.domainEvent.findMany({ where: { apiKeyId: appId } });
    const stored = JSON.stringify([rows, await server.running.database.db.activity.findMany({})], (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value));
    expect(stored).toContain('custom.approved');
    expect(stored).not.toContain(ws.apiKey);
  });

  it('adds nothing, events included, when the transaction fails after the first record', async () => {
    let calls = 0;
    // A projection that fails on the second event of the request: the first record and its event must go too.
    server.running.services.events.project(['activity.add'], `fail-second-${Date.now()}`, async (event) => {
      if ((event.payload as { activity: { targetEntityId: string } }).activity.targetEntityId === 'doomed' && ++calls === 2) throw new Error('projection failed');
    });
    const res = await server.post('/v2/activities/add', { data: { organizationId: ORG, activities: [record({ targetEntityId: 'doomed' }), record({ targetEntityId: 'doomed' })] } }, {
      'x-service-api-key': ws.apiKey,
      'x-service-auth-token': ws.authToken,
    });
    expect([res.status, res.body.error?.status]).toEqual([500, 'INTERNAL']);
    expect(await server.running.database.db.activity.count({ where: { apiKeyId: appId } })).toBe(0);
    expect(await activityEvents()).toEqual([]);
  });

  it('works while activity logging is disabled or enabled (isEnabled governs only automatic logging)', async () => {
    await client.workspace.updateActivityConfig({ isEnabled: false });
    await client.activities.addActivities({ organizationId: ORG, activities: [record()] });
    await client.workspace.updateActivityConfig({ isEnabled: true });
    await client.activities.addActivities({ organizationId: ORG, activities: [record()] });
    expect((await client.activities.getActivityLogs({ organizationId: ORG })).data).toHaveLength(2);
  });

  it('validates every field and bounds the batch', async () => {
    const add = (activity: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      client.activities.addActivities({ organizationId: ORG, activities: [activity as never], ...extra });
    await expectCollabError(add(record({ featureType: 'huddle' })), 'INVALID_ARGUMENT', /featureType/);
    await expectCollabError(add(record({ actionType: '' })), 'INVALID_ARGUMENT', /actionType/);
    await expectCollabError(add(record({ actionUser: { name: 'no id' } })), 'INVALID_ARGUMENT', /actionUser\.userId/);
    await expectCollabError(add(record({ targetEntityId: undefined })), 'INVALID_ARGUMENT', /targetEntityId/);
    await expectCollabError(add(record({ displayMessageTemplate: 'x'.repeat(4097) })), 'INVALID_ARGUMENT', /displayMessageTemplate/);
    await expectCollabError(add(record({ displayMessageTemplateData: { big: 'x'.repeat(16_400) } })), 'INVALID_ARGUMENT', /displayMessageTemplateData/);
    await expectCollabError(add(record({ timestamp: 5 })), 'INVALID_ARGUMENT', /timestamp/);
    await expectCollabError(add(record({ documentId: '__proto__' })), 'INVALID_ARGUMENT', /documentId/);
    await expectCollabError(client.activities.addActivities({ organizationId: ORG, activities: [] }), 'INVALID_ARGUMENT', /activities/);
    await expectCollabError(
      client.activities.addActivities({ organizationId: ORG, activities: Array.from({ length: 101 }, () => record()) }),
      'INVALID_ARGUMENT',
      /activities/,
    );
    expect((await client.activities.addActivities({ organizationId: ORG, activities: Array.from({ length: 100 }, () => record()) })).data).toHaveLength(100);
  });

  it('is NOT_FOUND for an unknown organization or document, and then adds nothing', async () => {
    await expectCollabError(client.activities.addActivities({ organizationId: 'nope', activities: [record({ documentId: undefined })] }), 'NOT_FOUND', /organization nope/);
    await expectCollabError(client.activities.addActivities({ organizationId: ORG, activities: [record(), record({ documentId: 'ghost' })] }), 'NOT_FOUND', /document ghost/);
    expect(await server.running.database.db.activity.count()).toBe(0);
    expect(await activityEvents()).toEqual([]);
  });
});
