// Comment events become notifications in the event's transaction, for the
// users each one's effective inbox config lets through: ALL (everything in a
// document they can read), MINE (what involves them), NONE (nothing); the
// document level overrides the organization default; never one's own action,
// an unreadable document, or a thread whose context their access fields miss.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TUserRef } from '../../../contract/common/content.js';
import type { TNotification } from '../../../contract/notifications/schemas.js';
import { audienceOfAnnotation, createAccessChecks } from '../../../server/domains/access/checks.js';
import { createAccessRepos } from '../../../server/domains/access/repos/index.js';
import { createAudience } from '../../../server/domains/notifications/audience.js';
import { involvedIn, scopeOf, type NotifyingEvent } from '../../../server/domains/notifications/projection.js';
import { createNotificationsRepo } from '../../../server/domains/notifications/repo.js';
import { testClock } from '../../../server/lib/clock.js';
import type { DomainEvent } from '../../../server/platform/events.js';
import type { Client } from '../../../sdk/index.js';
import { usingPostgres } from '../../helpers/database.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';
import { applicationIdOf, commentOf, publish, threadOf } from './fixture.js';

const ORG = 'org';
const clock = testClock(Date.UTC(2026, 5, 1));
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
let app: string;

const user = (userId: string): TUserRef => ({ userId, name: userId.toUpperCase(), email: `${userId}@example.com` });
const [ann, bob, cat, dan, eve, fay, gil, zed] = ['ann', 'bob', 'cat', 'dan', 'eve', 'fay', 'gil', 'zed'].map(user) as [TUserRef, TUserRef, TUserRef, TUserRef, TUserRef, TUserRef, TUserRef, TUserRef];

beforeAll(async () => {
  server = await startTestServer({}, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  app = await applicationIdOf(server, ws);
  for (const documentId of ['doc', 'doc2']) await client.organizations.addDocument({ organizationId: ORG, documentId });
  await client.organizations.addDocument({ organizationId: ORG, documentId: 'secret', accessType: 'restricted' });
  await client.organizations.addDocument({ organizationId: ORG, documentId: 'ctx', accessType: 'restricted' });
  await client.users.addUsers({ organizationId: ORG, users: [ann, bob, cat, dan, eve].map((u) => ({ userId: u.userId, name: u.name, email: u.email })) });
  await client.users.addUsers({ organizationId: ORG, documentId: 'secret', users: [{ userId: 'ann' }, { userId: 'bob' }] });
  for (const [u, fields] of [
    [ann, ['team:design']],
    [fay, ['team:design', 'tier:gold']],
    [gil, ['team:eng']],
  ] as const) {
    await client.permissions.addPermissions({ user: { userId: u.userId }, permissions: { resources: [{ type: 'document', id: 'ctx', organizationId: ORG, context: { accessFields: [...fields] } }] } });
  }
});
afterAll(() => server?.close());

async function inbox(userId: string, documentId?: string): Promise<TNotification[]> {
  const { data } = await client.notifications.getNotifications({ organizationId: ORG, userId, ...(documentId ? { documentId } : {}) });
  return data;
}

/** The recipients of the one notification the event produced (none: null). */
async function recipientsOfLatest(documentId: string, before: number): Promise<string[] | null> {
  const { data } = await client.notifications.getNotifications({ organizationId: ORG, documentId });
  if (data.length === before) return null;
  expect(data.length).toBe(before + 1);
  return Object.keys(data[0]!.notifyUsersByUserId).sort();
}

async function countOn(documentId: string): Promise<number> {
  return (await client.notifications.getNotifications({ organizationId: ORG, documentId })).data.length;
}

async function reply(documentId: string, actor: TUserRef, thread: ReturnType<typeof threadOf>, text: string, tagged: TUserRef[] = []) {
  const comment = commentOf(actor, text, tagged);
  const annotation = { ...thread, comments: [...thread.comments, comment] };
  const before = await countOn(documentId);
  clock.advance(1000);
  await publish(server, app, 'comment.add', actor, { annotation, comment });
  return recipientsOfLatest(documentId, before);
}

describe(`notification projection (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('writes one record per event with every field, reaching the thread creator and the mentioned users (MINE, the default)', async () => {
    const thread = threadOf({ organizationId: ORG, documentId: 'doc', from: bob, comments: [commentOf(bob, 'first')] });
    const comment = commentOf(ann, 'hello @cat', [cat]);
    const annotation = { ...thread, comments: [...thread.comments, comment] };
    clock.advance(1000);
    const event = await publish(server, app, 'comment.add', ann, { annotation, comment });

    const { data } = await client.notifications.getNotifications({ organizationId: ORG, documentId: 'doc' });
    expect(data).toHaveLength(1);
    expect(data[0]).toEqual({
      id: expect.stringMatching(/^ntf_/),
      notificationSource: 'comment',
      notificationSourceData: JSON.parse(JSON.stringify(annotation)),
      actionUser: ann,
      displayBodyMessage: 'hello @cat',
      displayHeadlineMessageTemplate: '{actionUser} commented',
      displayHeadlineMessageTemplateData: { actionType: 'comment.add', actionUser: ann },
      metadata: { apiKey: ws.apiKey, organizationId: ORG, documentId: 'doc' },
      notifyUsers: { 'bob@example.com': true, 'cat@example.com': true },
      notifyUsersByUserId: { bob: true, cat: true },
      readByUserIds: {},
      timestamp: event.occurredAt,
    });
    expect(event.occurredAt).toBe(clock.nowMs());

    // Read for one user, recipientUser is that user.
    const [forCat] = await inbox('cat', 'doc');
    expect(forCat!.displayHeadlineMessageTemplateData).toEqual({ actionType: 'comment.add', actionUser: ann, recipientUser: cat });
    expect(await inbox('dan', 'doc')).toEqual([]);
    expect(await inbox('ann', 'doc')).toEqual([]);
  });

  it('reaches everyone who commented in the thread for a reply, and nobody for their own action', async () => {
    const thread = threadOf({ organizationId: ORG, documentId: 'doc', from: bob, comments: [commentOf(bob, 'q'), commentOf(cat, 'a'), commentOf(dan, 'b')] });
    expect(await reply('doc', cat, thread, 'me again, @cat', [cat])).toEqual(['bob', 'dan']);
  });

  it('ALL at organization level reaches a user for every event of every document; a document-level value overrides it', async () => {
    await client.notifications.setNotificationConfig({ organizationId: ORG, userIds: ['eve'], config: { inbox: 'ALL' } });
    const thread = threadOf({ organizationId: ORG, documentId: 'doc2', from: bob });
    expect(await reply('doc2', bob, thread, 'nobody asked')).toEqual(['eve']);

    await client.notifications.setNotificationConfig({ organizationId: ORG, documentIds: ['doc2'], userIds: ['eve'], config: { inbox: 'MINE' } });
    const before = await countOn('doc2');
    clock.advance(1000);
    const comment = commentOf(bob, 'still nobody');
    await publish(server, app, 'comment.add', bob, { annotation: { ...thread, comments: [comment] }, comment });
    expect(await recipientsOfLatest('doc2', before)).toBeNull();
    await client.notifications.setNotificationConfig({ organizationId: ORG, userIds: ['eve'], config: { inbox: 'MINE' } });
    await client.notifications.setNotificationConfig({ organizationId: ORG, documentIds: ['doc2'], userIds: ['eve'], config: { inbox: 'MINE' } });
  });

  it('ALL on one document reaches the user there only', async () => {
    await client.notifications.setNotificationConfig({ organizationId: ORG, documentIds: ['doc'], userIds: ['dan'], config: { inbox: 'ALL' } });
    expect(await reply('doc', bob, threadOf({ organizationId: ORG, documentId: 'doc', from: bob }), 'on doc')).toEqual(['dan']);
    const before = await countOn('doc2');
    clock.advance(1000);
    const thread = threadOf({ organizationId: ORG, documentId: 'doc2', from: bob });
    const comment = commentOf(bob, 'on doc2');
    await publish(server, app, 'comment.add', bob, { annotation: { ...thread, comments: [comment] }, comment });
    expect(await recipientsOfLatest('doc2', before)).toBeNull();
    await client.notifications.setNotificationConfig({ organizationId: ORG, documentIds: ['doc'], userIds: ['dan'], config: { inbox: 'MINE' } });
  });

  it('NONE silences even a mention; a document-level MINE lifts an organization-level NONE there', async () => {
    await client.notifications.setNotificationConfig({ organizationId: ORG, userIds: ['cat'], config: { inbox: 'NONE' } });
    expect(await reply('doc', ann, threadOf({ organizationId: ORG, documentId: 'doc', from: ann }), '@cat @dan', [cat, dan])).toEqual(['dan']);
    await client.notifications.setNotificationConfig({ organizationId: ORG, documentIds: ['doc'], userIds: ['cat'], config: { inbox: 'MINE' } });
    expect(await reply('doc', ann, threadOf({ organizationId: ORG, documentId: 'doc', from: ann }), '@cat', [cat])).toEqual(['cat']);
    const before = await countOn('doc2');
    clock.advance(1000);
    const comment = commentOf(ann, '@cat on doc2', [cat]);
    await publish(server, app, 'comment.add', ann, { annotation: threadOf({ organizationId: ORG, documentId: 'doc2', from: ann, comments: [comment] }), comment });
    expect(await recipientsOfLatest('doc2', before)).toBeNull();
    await client.notifications.setNotificationConfig({ organizationId: ORG, userIds: ['cat'], config: { inbox: 'MINE' } });
  });

  it('never reaches a user who cannot read the document, whatever their config', async () => {
    await client.notifications.setNotificationConfig({ organizationId: ORG, userIds: ['cat', 'zed'], config: { inbox: 'ALL' } });
    // zed is no member at all; cat is a member but the document is restricted to ann and bob.
    expect(await reply('secret', ann, threadOf({ organizationId: ORG, documentId: 'secret', from: ann }), '@zed @cat @bob', [zed, cat, bob])).toEqual(['bob']);
    expect(await reply('doc2', ann, threadOf({ organizationId: ORG, documentId: 'doc2', from: ann }), '@zed', [zed])).toEqual(['cat']);
    await client.notifications.setNotificationConfig({ organizationId: ORG, userIds: ['cat', 'zed'], config: { inbox: 'MINE' } });
  });

  it("reaches a user on a thread with context only when their access fields match it", async () => {
    const thread = threadOf({ organizationId: ORG, documentId: 'ctx', from: ann, context: { team: 'design', nested: { ignored: true } } });
    expect(await reply('ctx', ann, thread, '@fay @gil', [fay, gil])).toEqual(['fay']);
    const plain = threadOf({ organizationId: ORG, documentId: 'ctx', from: ann });
    expect(await reply('ctx', ann, plain, '@fay @gil', [fay, gil])).toEqual(['fay', 'gil']);
  });

  it('writes nothing when the event reaches nobody', async () => {
    const before = await countOn('doc');
    clock.advance(1000);
    const comment = commentOf(ann, 'talking to myself', [ann]);
    await publish(server, app, 'comment.add', ann, { annotation: threadOf({ organizationId: ORG, documentId: 'doc', from: ann, comments: [comment] }), comment });
    expect(await recipientsOfLatest('doc', before)).toBeNull();
  });

  it('reaches the assignee of an assignment, the creator and assignee of a status change, the author of a reacted comment', async () => {
    const thread = threadOf({ organizationId: ORG, documentId: 'doc', from: bob, assignedTo: cat, comments: [commentOf(dan, 'x')] });
    clock.advance(1000);
    await publish(server, app, 'comment_annotation.assign', ann, { annotation: thread, previousAssignee: null, assignedTo: cat });
    const [assign] = (await client.notifications.getNotifications({ organizationId: ORG, documentId: 'doc' })).data;
    expect(Object.keys(assign!.notifyUsersByUserId)).toEqual(['cat']);
    expect(assign!.displayHeadlineMessageTemplate).toBe('{actionUser} assigned the thread to {assignee}');
    expect(assign!.displayHeadlineMessageTemplateData).toMatchObject({ assignee: 'CAT', actionType: 'comment_annotation.assign' });

    clock.advance(1000);
    await publish(server, app, 'comment_annotation.status_change', ann, { annotation: { ...thread, status: 'resolved' }, previousStatus: 'open', status: 'resolved' });
    const [status] = (await client.notifications.getNotifications({ organizationId: ORG, documentId: 'doc' })).data;
    expect(Object.keys(status!.notifyUsersByUserId).sort()).toEqual(['bob', 'cat']);
    expect(status!.displayHeadlineMessageTemplateData).toMatchObject({ status: 'resolved' });

    clock.advance(1000);
    const comment = thread.comments[0]!;
    await publish(server, app, 'comment.reaction_add', ann, { annotation: thread, comment, reaction: { reactionId: 'r1', icon: 'thumbs_up', from: ann, createdAt: 1 } });
    const [reaction] = (await client.notifications.getNotifications({ organizationId: ORG, documentId: 'doc' })).data;
    expect(Object.keys(reaction!.notifyUsersByUserId)).toEqual(['dan']);
    expect(reaction!.displayHeadlineMessageTemplate).toBe('{actionUser} reacted {reaction} to a comment');

    // Deletions notify nobody.
    const before = await countOn('doc');
    await publish(server, app, 'comment.delete', ann, { annotation: thread, comment });
    await publish(server, app, 'comment_annotation.delete', ann, { annotation: thread });
    expect(await countOn('doc')).toBe(before);
  });

  it('keeps the location of the thread', async () => {
    const thread = threadOf({ organizationId: ORG, documentId: 'doc', from: bob, locationId: 'page-3' });
    await reply('doc', ann, thread, 'here');
    const { data } = await client.notifications.getNotifications({ organizationId: ORG, documentId: 'doc', locationId: 'page-3' });
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({ locationId: 'page-3', notifyUsersByUserId: { bob: true } });
  });

  it('rolls back with the change that published it', async () => {
    const before = await countOn('doc');
    const thread = threadOf({ organizationId: ORG, documentId: 'doc', from: bob });
    const comment = commentOf(ann, 'never happened');
    await expect(
      server.running.database.uow.run(async () => {
        await server.running.services.events.publish({ type: 'comment.add', apiKeyId: app, organizationId: ORG, documentId: 'doc', actor: ann, payload: { annotation: { ...thread, comments: [comment] }, comment } });
        throw new Error('the comment write failed');
      }),
    ).rejects.toThrow('the comment write failed');
    expect(await countOn('doc')).toBe(before);
  });

  it('fans a mention of 20 users with configs out in a fixed number of queries', async () => {
    const many = Array.from({ length: 20 }, (_, i) => user(`m${String(i).padStart(2, '0')}`));
    await client.users.addUsers({ organizationId: ORG, users: many.map((u) => ({ userId: u.userId, name: u.name, email: u.email })) });
    await client.notifications.setNotificationConfig({ organizationId: ORG, userIds: many.map((u) => u.userId), config: { inbox: 'MINE', email: 'ALL' } });
    await client.notifications.setNotificationConfig({ organizationId: ORG, documentIds: ['doc'], userIds: many.slice(0, 10).map((u) => u.userId), config: { inbox: 'ALL' } });
    const thread = threadOf({ organizationId: ORG, documentId: 'doc', from: ann });
    expect(await reply('doc', ann, thread, 'all of you', many)).toEqual(many.map((u) => u.userId));
    // The same fan-out (the inbox projection's reads) over access repos this test watches, built as the server
    // builds them: one query per aggregate, whatever the number of users.
    const { db } = server.running.database;
    const repos = createAccessRepos(db, clock);
    const audience = createAudience({ repo: createNotificationsRepo(db), users: repos.users, checks: createAccessChecks({ ...repos, now: clock.now }) });
    const comment = commentOf(ann, 'all of you', many);
    const event: DomainEvent<NotifyingEvent> = {
      id: 'evt_fan_out',
      type: 'comment.add',
      apiKeyId: app,
      organizationId: ORG,
      documentId: 'doc',
      actor: ann,
      occurredAt: clock.nowMs(),
      payload: { annotation: { ...thread, comments: [...thread.comments, comment] }, comment },
    };
    const calls = { users: vi.spyOn(repos.users, 'findUsers'), groups: vi.spyOn(repos.groups, 'groupsOfUsers'), grants: vi.spyOn(repos.grants, 'liveGrantsOnDocument') };
    try {
      const { annotation, where, actionUser } = scopeOf(event);
      const involved = involvedIn(event);
      const reached = await audience.reached(where, 'inbox', involved, actionUser.userId, audienceOfAnnotation(annotation));
      expect((await audience.recipientsOf(app, reached, involved)).map((r) => r.userId).sort()).toEqual(many.map((u) => u.userId));
      expect([calls.users.mock.calls.length, calls.groups.mock.calls.length, calls.grants.mock.calls.length]).toEqual([1, 1, 1]);
    } finally {
      Object.values(calls).forEach((spy) => spy.mockRestore());
    }
    const [latest] = (await client.notifications.getNotifications({ organizationId: ORG, documentId: 'doc' })).data;
    expect(Object.keys(latest!.notifyUsers)).toHaveLength(20);
    expect(latest!.notifyUsers['m07@example.com']).toBe(true);
  });
});
