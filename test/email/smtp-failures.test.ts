// A relay that cannot take the email never fails the request that caused
// it: the send job fails, keeps a reason that names the problem and no
// credential, and retries with backoff until the relay takes it.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../sdk/index.js';
import { testClock } from '../../server/lib/clock.js';
import { usingPostgres } from '../helpers/database.js';
import { recordSecret } from '../helpers/log-capture.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startSmtpCapture } from './smtp-capture.js';

const SMTP_USER = 'mailer';
const SMTP_PASSWORD = `right-${randomBytes(12).toString('hex')}`;
/** With characters a URL must encode, so both of its forms are looked for. */
const WRONG_PASSWORD = `wrong/pass+${randomBytes(12).toString('hex')}`;
const clock = testClock(Date.UTC(2026, 7, 1));

let smtp: Awaited<ReturnType<typeof startSmtpCapture>>;
let server: TestServer;
let client: Client;

beforeAll(async () => {
  recordSecret('provider key', SMTP_PASSWORD);
  recordSecret('provider key', WRONG_PASSWORD);
  recordSecret('provider key', encodeURIComponent(WRONG_PASSWORD));
  smtp = await startSmtpCapture({ user: SMTP_USER, password: SMTP_PASSWORD });
  // No SMTP_URL yet: the operator has not configured the relay.
  server = await startTestServer({}, { overrides: { clock } });
  client = server.client(await server.workspace());
  await client.users.addUsers({ organizationId: 'org', users: [{ userId: 'ann', name: 'Ann', email: 'ann@example.com' }, { userId: 'cat', name: 'Cat', email: 'cat@example.com' }] });
  await client.workspace.updateEmailConfig({ useEmailService: true });
});
afterAll(async () => {
  await server?.close();
  await smtp?.close();
});

const emailJob = async () => {
  const rows = await server.running.database.db.job.findMany({ where: { kind: 'email.send' } });
  expect(rows).toHaveLength(1);
  return rows[0]!;
};

async function restartWith(smtpUrl: string) {
  server.env.SMTP_URL = smtpUrl;
  await server.restart();
}

describe(`a relay that refuses (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('fails the job, not the request, with a reason and no credential, and retries with backoff until it is sent', async () => {
    const res = await client.comments.addCommentAnnotations({
      organizationId: 'org',
      documentId: 'doc',
      commentAnnotations: [{ annotationId: 'a1', from: { userId: 'ann' }, commentData: [{ commentText: 'hi @cat', taggedUserContacts: [{ userId: 'cat' }] }] }],
    });
    expect(res.status).toBe('success');

    // 1. SMTP_URL unset.
    await server.running.services.jobs.runDue();
    let job = await emailJob();
    expect(job).toMatchObject({ state: 'pending', attempts: 1 });
    expect(job.lastError).toMatch(/^SMTP_URL is not set: email of type default or custom cannot be sent/);
    expect(Number(job.runAt)).toBe(clock.nowMs() + 30_000);

    // 2. A wrong password: the relay's refusal (which echoes the password it got) is kept without it.
    await restartWith(smtp.url(SMTP_USER, WRONG_PASSWORD));
    await server.running.services.jobs.runDue();
    expect((await emailJob()).attempts).toBe(1); // not due yet: nothing ran
    clock.advance(30_000);
    await server.running.services.jobs.runDue();
    job = await emailJob();
    expect(job).toMatchObject({ state: 'pending', attempts: 2 });
    expect(job.lastError).toMatch(/^SMTP delivery failed \(EAUTH\): Invalid login: 535 Invalid login for \[redacted\] with password \[redacted\]/);
    for (const form of [WRONG_PASSWORD, encodeURIComponent(WRONG_PASSWORD), Buffer.from(WRONG_PASSWORD).toString('base64').slice(0, 20), SMTP_PASSWORD]) {
      expect(job.lastError).not.toContain(form);
    }
    expect(Number(job.runAt)).toBe(clock.nowMs() + 60_000);
    expect(smtp.mails).toHaveLength(0);

    // 3. The operator fixes the relay's credentials: the next try sends.
    await restartWith(smtp.url());
    clock.advance(60_000);
    await server.running.services.jobs.runDue();
    job = await emailJob();
    expect(job).toMatchObject({ state: 'completed', attempts: 3, lastError: null });
    expect(smtp.takeRecipients()).toEqual(['cat@example.com']);
  });
});
