// Email of type thirdparty goes through the delivery provider's HTTP API
// (SendGrid's v3 Mail Send shape), mocked with msw: the exact request, and
// a provider failure that leaves the API call alone, is retried with
// backoff, keeps no key in its reason, and is sent by a later try.
import { randomBytes } from 'node:crypto';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Client } from '../../sdk/index.js';
import { testClock } from '../../server/lib/clock.js';
import { usingPostgres } from '../helpers/database.js';
import { recordSecret } from '../helpers/log-capture.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const BASE = 'https://email-provider.test';
const KEY = `SG.${randomBytes(11).toString('base64url')}.${randomBytes(32).toString('base64url')}`;
const clock = testClock(Date.UTC(2026, 8, 1));

interface SeenRequest {
  method: string;
  url: string;
  authorization: string | null;
  contentType: string | null;
  body: unknown;
}
const seen: SeenRequest[] = [];
let answer: (request: Request) => Response = () => new HttpResponse(null, { status: 202 });

// Intercepts this test process's outgoing HTTP, which includes the in-process server's fetch to the provider;
// everything else (the SDK's calls to the test server) passes through.
const provider = setupServer(
  http.post(`${BASE}/v3/mail/send`, async ({ request }) => {
    seen.push({
      method: request.method,
      url: request.url,
      authorization: request.headers.get('authorization'),
      contentType: request.headers.get('content-type'),
      body: await request.clone().json(),
    });
    return answer(request);
  }),
);

let server: TestServer;
let client: Client;
let sequence = 0;

beforeAll(async () => {
  recordSecret('provider key', KEY);
  provider.listen({ onUnhandledRequest: 'bypass' });
  server = await startTestServer({ EMAIL_PROVIDER_BASE_URL: BASE }, { overrides: { clock } });
  client = server.client(await server.workspace());
  await client.users.addUsers({
    organizationId: 'org',
    users: [
      { userId: 'ann', name: 'Ann', email: 'ann@example.com' },
      { userId: 'cat', name: 'Cat', email: 'cat@example.com' },
    ],
  });
  await client.workspace.updateEmailConfig({
    useEmailService: true,
    emailServiceConfig: { type: 'thirdparty', apiKey: KEY, fromEmail: 'team@example.com', fromCompany: 'Example Inc.' },
  });
});
afterAll(async () => {
  provider.close();
  await server?.close();
});
beforeEach(() => {
  seen.length = 0;
  answer = () => new HttpResponse(null, { status: 202 });
});

async function mentionCat(text: string) {
  sequence += 1;
  clock.advance(1000);
  return client.comments.addCommentAnnotations({
    organizationId: 'org',
    documentId: 'doc',
    commentAnnotations: [{ annotationId: `p${sequence}`, from: { userId: 'ann' }, commentData: [{ commentText: text, taggedUserContacts: [{ userId: 'cat' }] }] }],
  });
}

const latestJob = async () => (await server.running.database.db.job.findMany({ where: { kind: 'email.send' }, orderBy: { id: 'desc' }, take: 1 }))[0]!;

describe(`email through the provider API (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('posts one v3 mail send per email: URL, bearer key, JSON body', async () => {
    await mentionCat('Ship it <now> & "later"');
    expect(seen).toEqual([]);
    await server.running.services.jobs.runDue();
    expect(seen).toEqual([
      {
        method: 'POST',
        url: `${BASE}/v3/mail/send`,
        authorization: `Bearer ${KEY}`,
        contentType: 'application/json',
        body: {
          personalizations: [{ to: [{ email: 'cat@example.com', name: 'Cat' }] }],
          from: { email: 'team@example.com', name: 'Example Inc.' },
          subject: 'Ann started a comment thread',
          content: [
            { type: 'text/plain', value: 'Ann started a comment thread\n\nShip it <now> & "later"\n\nDocument doc in organization org\n' },
            {
              type: 'text/html',
              value: [
                '<!doctype html>',
                '<html><body>',
                '<p><strong>Ann started a comment thread</strong></p>',
                '<blockquote style="white-space: pre-wrap">Ship it &lt;now&gt; &amp; &quot;later&quot;</blockquote>',
                '<p style="color: #666">Document doc in organization org</p>',
                '</body></html>',
                '',
              ].join('\n'),
            },
          ],
        },
      },
    ]);
    expect(await latestJob()).toMatchObject({ state: 'completed', attempts: 1, lastError: null });
    expect(JSON.parse((await latestJob()).result!)).toEqual({ sent: true, via: 'provider' });
  });

  it('a provider failure leaves the API call alone; the job retries with backoff, keeps no key, and a later try sends', async () => {
    // A provider that answers 500 and echoes the credential it got.
    answer = (request) => HttpResponse.json({ errors: [{ message: `internal error for ${request.headers.get('authorization')}` }] }, { status: 500 });
    const res = await mentionCat('retry me');
    expect(res.status).toBe('success');

    await server.running.services.jobs.runDue();
    let job = await latestJob();
    expect(job).toMatchObject({ state: 'pending', attempts: 1 });
    expect(job.lastError).toBe('email provider answered HTTP 500: {"errors":[{"message":"internal error for Bearer [redacted]"}]}');
    expect(job.lastError).not.toContain(KEY);
    expect(Number(job.runAt)).toBe(clock.nowMs() + 30_000);

    // A network failure is a failed try too.
    answer = () => HttpResponse.error();
    clock.advance(30_000);
    await server.running.services.jobs.runDue();
    job = await latestJob();
    expect(job).toMatchObject({ state: 'pending', attempts: 2 });
    expect(job.lastError).toMatch(/^email provider request failed: /);

    answer = () => new HttpResponse(null, { status: 202 });
    clock.advance(60_000);
    await server.running.services.jobs.runDue();
    job = await latestJob();
    expect(job).toMatchObject({ state: 'completed', attempts: 3, lastError: null });
    expect(seen).toHaveLength(3);
    expect(seen.map((r) => (r.body as { subject: string }).subject)).toEqual(Array(3).fill('Ann started a comment thread'));
  });

  it('sends without a sender name when fromCompany is empty', async () => {
    await client.workspace.updateEmailConfig({ emailServiceConfig: { fromCompany: '' } });
    await mentionCat('no company');
    await server.running.services.jobs.runDue();
    expect(seen).toHaveLength(1);
    expect((seen[0]!.body as { from: unknown }).from).toEqual({ email: 'team@example.com' });
  });
});
