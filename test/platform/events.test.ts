// Domain events: published inside the unit of work of the change, with their
// projections and their outbox row in the same transaction, validated against
// the registry's payload schema, and announced only after the commit.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../server/db/client.js';
import { applyMigrations } from '../../server/db/migrate.js';
import { testClock } from '../../server/lib/clock.js';
import { createIds } from '../../server/lib/ids.js';
import { createEventBus, eventFromRow, type DomainEvent, type EventBus } from '../../server/platform/events.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let testDb: TestDatabase;
let database: Database;
let bus: EventBus;
const announced: DomainEvent[] = [];

beforeAll(async () => {
  testDb = await createTestDatabase();
  await applyMigrations(testDb.url);
  database = await openDatabase(testDb.url);
  const clock = testClock(Date.UTC(2026, 10, 23));
  bus = createEventBus({ db: database.db, uow: database.uow, ids: createIds(clock), clock });
  // A projection that writes a row of its own, standing in for activity records and notifications.
  bus.project(['activity.add'], 'test-projection', async (event) => {
    await database.db.serverMeta.create({ data: { key: `projected:${event.id}`, value: event.type, createdAt: BigInt(event.occurredAt) } });
  });
  bus.afterCommit((event) => {
    announced.push(event);
  });
});
afterAll(async () => {
  await database?.close();
  await testDb?.drop();
});
beforeEach(async () => {
  announced.length = 0;
  await database.db.domainEvent.deleteMany({});
  await database.db.serverMeta.deleteMany({ where: { key: { startsWith: 'projected:' } } });
});

const activity = {
  id: 'act_1',
  featureType: 'custom' as const,
  actionType: 'custom.thing',
  actionUser: { userId: 'u1', name: 'Ada' },
  targetEntityId: 't1',
  displayMessageTemplate: '{{user}} did a thing',
  displayMessageTemplateData: { user: 'Ada' },
  metadata: { apiKey: 'key', organizationId: 'org', documentId: 'doc' },
  timestamp: 1,
};
const newEvent = () => ({ type: 'activity.add' as const, apiKeyId: 'app', organizationId: 'org', documentId: 'doc', actor: { userId: 'u1' }, payload: { activity } });

describe(`event bus (${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('writes the outbox row and the projections with the change, and announces after the commit', async () => {
    const event = await database.uow.run(async () => {
      const published = await bus.publish(newEvent());
      expect(announced).toEqual([]);
      return published;
    });
    expect(event.id).toMatch(/^evt_/);
    const row = await database.db.domainEvent.findUniqueOrThrow({ where: { id: event.id } });
    expect(eventFromRow(row)).toEqual(event);
    expect(await database.db.serverMeta.count({ where: { key: `projected:${event.id}` } })).toBe(1);
    expect(announced.map((e) => e.id)).toEqual([event.id]);
  });

  it('keeps nothing of an event whose change rolls back', async () => {
    await expect(
      database.uow.run(async () => {
        await bus.publish(newEvent());
        throw new Error('the change failed after publishing');
      }),
    ).rejects.toThrow('the change failed');
    expect(await database.db.domainEvent.count()).toBe(0);
    expect(await database.db.serverMeta.count({ where: { key: { startsWith: 'projected:' } } })).toBe(0);
    expect(announced).toEqual([]);
  });

  it('refuses to publish outside a unit of work', async () => {
    await expect(bus.publish(newEvent())).rejects.toThrow(/outside a unit of work/);
  });

  it('refuses a payload that does not match the registry schema', async () => {
    const bad = { ...newEvent(), payload: { activity: { ...activity, featureType: 'nope' } } } as unknown as ReturnType<typeof newEvent>;
    await expect(database.uow.run(() => bus.publish(bad))).rejects.toThrow();
    expect(await database.db.domainEvent.count()).toBe(0);
  });
});
