// Email notifications of types default and custom, end to end: comment
// writes through the HTTP API, the email projection's durable jobs, the
// server's SMTP relay (a real smtp-server on port 0) and the messages read
// back with mailparser. Who gets an email follows each user's effective
// email config (ALL / MINE / NONE) exactly as the inbox follows the inbox
// config; triggers and useEmailService switch it off.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TUserRef } from '../../contract/common/content.js';
import type { Client } from '../../sdk/index.js';
import { testClock } from '../../server/lib/clock.js';
import { usingPostgres } from '../helpers/database.js';
import { recordSecret } from '../helpers/log-capture.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';
import { startSmtpCapture } from './smtp-capture.js';

const ORG = 'org';
const SMTP_USER = 'mailer';
const SMTP_PASSWORD = `smtp-pass-${randomBytes(12).toString('hex')}`;
const clock = testClock(Date.UTC(2026, 6, 1));

let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;

const person = (userId: string, email = true): TUserRef & { name: string } => ({
  userId,
  name: userId[0]!.toUpperCase() + userId.slice(1),
  ...(email ? { email: `${userId}@example.com` } : {}),
});
const ann = person('ann');
const bob = person('bob');
const cat = person('cat');
const dan = person('dan');
const eve = person('eve');
/** A member without an email address. */
const fay = person('fay', false);
/** Not a member of the organization. */
const zed = { userId: 'zed', email: 'zed@example.com' };

let sequence = 0;
async function openThread(from: TUserRef, text: string, tagged: TUserRef[] = [], documentId = 'doc') {
  sequence += 1;
  clock.advance(1000);
  const { data } = await client.comments.addCommentAnnotations({
    organizationId: ORG,
    documentId,
    commentAnnotations: [{ annotationId: `t${sequence}`, from: { userId: from.userId }, commentData: [{ commentText: text, taggedUserContacts: tagged.map((u) => ({ userId: u.userId })) }] }],
  });
  return data[0]!;
}

async function reply(annotationId: string, from: TUserRef, text: string, tagged: TUserRef[] = []) {
  clock.advance(1000);
  const { data } = await client.comments.addComments({
    organizationId: ORG,
    documentId: 'doc',
    annotationId,
    commentData: [{ from: { userId: from.userId }, commentText: text, taggedUserContacts: tagged.map((u) => ({ userId: u.userId })) }],
  });
  return data[0]!;
}

const emailJobs = () => server.running.database.db.job.findMany({ where: { kind: 'email.send' }, orderBy: { id: 'asc' } });

/** Runs the due jobs; returns who got an email, sorted. */
async function deliver(): Promise<string[]> {
  await server.running.services.jobs.runDue();
  return smtp.takeRecipients();
}

beforeAll(async () => {
  recordSecret('provider key', SMTP_PASSWORD);
  smtp = await startSmtpCapture({ user: SMTP_USER, password: SMTP_PASSWORD });
  server = await startTestServer({ SMTP_URL: smtp.url(), EMAIL_FROM: 'Collab Test <no-reply@collab.test>' }, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  await client.organizations.addDocument({ organizationId: ORG, documentId: 'doc' });
  await client.organizations.addDocument({ organizationId: ORG, documentId: 'secret', accessType: 'restricted' });
  await client.users.addUsers({ organizationId: ORG, users: [ann, bob, cat, dan, eve, fay].map((u) => ({ userId: u.userId, name: u.name, ...(u.email ? { email: u.email } : {}) })) });
  await client.users.addUsers({ organizationId: ORG, documentId: 'secret', users: [{ userId: 'ann' }, { userId: 'bob' }] });
  await client.workspace.updateEmailConfig({ useEmailService: true, emailServiceConfig: { fromEmail: 'team@example.com', fromCompany: 'Example Inc.' } });
});
afterAll(async () => {
  await server?.close();
  await smtp?.close();
});
beforeEach(async () => {
  await server.running.services.jobs.runDue();
  smtp.takeRecipients();
});

describe(`email through the SMTP relay (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('a mention in a new thread emails the mentioned user: recipient, sender, subject, text and escaped HTML', async () => {
    const before = (await emailJobs()).length;
    await openThread(ann, 'Hello @cat, see <b>this</b> & "that"', [cat]);
    // The API call succeeded and left one job for the one email; nothing is sent before the worker runs.
    const jobs = (await emailJobs()).slice(before);
    expect(jobs.map((j) => [j.state, j.apiKeyId !== null, JSON.parse(j.payload).userId])).toEqual([['pending', true, 'cat']]);
    expect(smtp.mails).toHaveLength(0);

    await server.running.services.jobs.runDue();
    expect(smtp.mails).toHaveLength(1);
    const mail = smtp.mails[0]!;
    expect(mail.to).toEqual(['cat@example.com']);
    expect(mail.from).toBe('team@example.com');
    expect(mail.user).toBe(SMTP_USER);
    const parsed = await mail.parsed();
    expect(parsed.from?.value).toEqual([{ name: 'Example Inc.', address: 'team@example.com' }]);
    expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.value : null).toEqual([{ name: 'Cat', address: 'cat@example.com' }]);
    expect(parsed.subject).toBe('Ann started a comment thread');
    expect(parsed.text).toBe(`Ann started a comment thread\n\nHello @cat, see <b>this</b> & "that"\n\nDocument doc in organization ${ORG}\n`);
    expect(parsed.html).toContain('<strong>Ann started a comment thread</strong>');
    expect(parsed.html).toContain('Hello @cat, see &lt;b&gt;this&lt;/b&gt; &amp; &quot;that&quot;');
    expect(parsed.html).not.toContain('<b>this</b>');

    const [job] = (await emailJobs()).slice(before);
    expect(job).toMatchObject({ state: 'completed', attempts: 1, lastError: null });
    expect(JSON.parse(job!.result!)).toEqual({ sent: true, via: 'smtp' });
    smtp.takeRecipients();
  });

  it('MINE (the default) reaches the users the event involves: the thread creator and every commenter for a reply, each mention', async () => {
    const thread = await openThread(bob, 'question');
    await reply(thread.annotationId, cat, 'answer');
    expect(await deliver()).toEqual(['bob@example.com']);
    await reply(thread.annotationId, ann, 'and @dan', [dan]);
    expect(await deliver()).toEqual(['bob@example.com', 'cat@example.com', 'dan@example.com']);
  });

  it('ALL reaches a user for every event of the document, NONE silences even a mention, each independent of the inbox channel', async () => {
    await client.notifications.setNotificationConfig({ organizationId: ORG, userIds: ['dan'], config: { email: 'ALL' } });
    await client.notifications.setNotificationConfig({ organizationId: ORG, userIds: ['eve'], config: { email: 'NONE', inbox: 'ALL' } });
    await openThread(ann, 'hi @eve and @cat', [eve, cat]);
    expect(await deliver()).toEqual(['cat@example.com', 'dan@example.com']);
    // The inbox follows its own channel: dan (inbox MINE, not involved) has no notification, eve (inbox ALL) has one.
    const inbox = async (userId: string) => (await client.notifications.getNotifications({ organizationId: ORG, userId, documentId: 'doc' })).data.length;
    const [danBefore, eveBefore] = [await inbox('dan'), await inbox('eve')];
    await openThread(ann, 'hi again @eve', [eve]);
    expect(await deliver()).toEqual(['dan@example.com']);
    expect([await inbox('dan'), await inbox('eve')]).toEqual([danBefore, eveBefore + 1]);

    // A document-level value overrides the organization default.
    await client.notifications.setNotificationConfig({ organizationId: ORG, documentIds: ['doc'], userIds: ['eve'], config: { email: 'MINE' } });
    await openThread(ann, '@eve now', [eve]);
    expect(await deliver()).toEqual(['dan@example.com', 'eve@example.com']);
    await client.notifications.setNotificationConfig({ organizationId: ORG, userIds: ['dan', 'eve'], config: { email: 'MINE', inbox: 'MINE' } });
    await client.notifications.setNotificationConfig({ organizationId: ORG, documentIds: ['doc'], userIds: ['eve'], config: { email: 'MINE' } });
  });

  it('never emails the acting user, a user without an email address, a non-member, or a user who cannot read the document', async () => {
    const before = (await emailJobs()).length;
    await openThread(ann, '@ann @fay @zed @cat', [ann, fay, zed, cat]);
    expect(await deliver()).toEqual(['cat@example.com']);
    // cat is a member, but "secret" is restricted to ann and bob.
    await openThread(ann, '@cat @bob', [cat, bob], 'secret');
    expect(await deliver()).toEqual(['bob@example.com']);
    // No job at all for those left out.
    expect((await emailJobs()).slice(before).map((j) => JSON.parse(j.payload).userId)).toEqual(['cat', 'bob']);
  });

  it('a trigger set to false sends nothing for its event type; a type without a trigger (comment.update) sends once turned on', async () => {
    await client.workspace.updateEmailConfig({ emailServiceConfig: { triggers: { 'comment_annotation.add': false } } });
    const before = (await emailJobs()).length;
    const thread = await openThread(ann, 'silent @cat', [cat]);
    expect(await deliver()).toEqual([]);
    expect(await emailJobs()).toHaveLength(before);
    // comment.add is still on.
    const comment = await reply(thread.annotationId, ann, 'loud @cat', [cat]);
    expect(await deliver()).toEqual(['cat@example.com']);

    const edit = () =>
      client.comments.updateComment({
        organizationId: ORG,
        documentId: 'doc',
        annotationId: thread.annotationId,
        commentId: comment.commentId,
        actionUser: { userId: 'ann' },
        updatedData: { commentText: `edited @dan ${++sequence}`, taggedUserContacts: [{ userId: 'dan' }] },
      });
    await edit();
    expect(await deliver()).toEqual([]);
    await client.workspace.updateEmailConfig({ emailServiceConfig: { triggers: { 'comment.update': true, 'comment_annotation.add': true } } });
    await edit();
    expect(await deliver()).toEqual(['dan@example.com']);
  });

  it('useEmailService false sends nothing; a job enqueued before email was turned off sends nothing either', async () => {
    await client.workspace.updateEmailConfig({ useEmailService: false });
    const before = (await emailJobs()).length;
    await openThread(ann, 'off @cat', [cat]);
    expect(await deliver()).toEqual([]);
    expect(await emailJobs()).toHaveLength(before);

    await client.workspace.updateEmailConfig({ useEmailService: true });
    await openThread(ann, 'on @cat', [cat]);
    await client.workspace.updateEmailConfig({ useEmailService: false });
    expect(await deliver()).toEqual([]);
    const [job] = (await emailJobs()).slice(before);
    expect(job).toMatchObject({ state: 'completed' });
    expect(JSON.parse(job!.result!)).toEqual({ skipped: 'the email service is off' });
    await client.workspace.updateEmailConfig({ useEmailService: true });
  });

  it('falls back to EMAIL_FROM without a fromEmail', async () => {
    await client.workspace.updateEmailConfig({ emailServiceConfig: { fromEmail: '', fromCompany: '' } });
    await openThread(ann, 'plain @cat', [cat]);
    await server.running.services.jobs.runDue();
    expect(smtp.mails).toHaveLength(1);
    const parsed = await smtp.mails[0]!.parsed();
    expect(parsed.from?.value).toEqual([{ name: 'Collab Test', address: 'no-reply@collab.test' }]);
    smtp.takeRecipients();

    await client.workspace.updateEmailConfig({ emailServiceConfig: { fromEmail: 'team@example.com', fromCompany: 'Example Inc.' } });
  });

  it('a change that rolls back sends nothing', async () => {
    const appId = (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', ws.apiKey)).apiKey.id;
    const before = (await emailJobs()).length;
    const comment = { commentId: 'rb', commentText: '@cat', from: ann, taggedUserContacts: [cat], createdAt: 1, lastUpdated: 1, reactions: [] };
    const annotation = {
      annotationId: 'rolled-back',
      organizationId: ORG,
      documentId: 'doc',
      status: 'open',
      priority: null,
      assignedTo: null,
      customList: [],
      context: null,
      from: ann,
      comments: [comment],
      createdAt: 1,
      lastUpdated: 1,
    };
    await expect(
      server.running.database.uow.run(async () => {
        await server.running.services.events.publish({ type: 'comment_annotation.add', apiKeyId: appId, organizationId: ORG, documentId: 'doc', actor: ann, payload: { annotation } });
        throw new Error('the comment write failed');
      }),
    ).rejects.toThrow('the comment write failed');
    expect(await emailJobs()).toHaveLength(before);
    expect(await deliver()).toEqual([]);
  });
});
