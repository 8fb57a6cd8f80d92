import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const PATH = '/v2/workspace/email/status';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ EMAIL_STATUS_LIMIT_PER_EMAIL: '3', EMAIL_STATUS_LIMIT_PER_IP: '12' });
});
afterAll(() => server?.close());

describe('Get Email Verification Status', () => {
  it('is public and reports unverified, then verified after workspace verify-email', async () => {
    await server.workspace('Status.Owner@Example.com');
    const anonymous = createClient({ baseUrl: server.url });
    const before = await anonymous.workspace.getEmailVerificationStatus({ ownerEmail: 'status.owner@example.com' });
    expect(before.data).toEqual({ verified: false });
    expect(before.message).toMatch(/not verified/);

    expect(await server.cli('workspace', 'verify-email', '--owner-email', 'status.owner@example.com')).toEqual({ verified: true });
    const after = await anonymous.workspace.getEmailVerificationStatus({ ownerEmail: 'status.owner@example.com' });
    expect(after.data).toEqual({ verified: true });
    expect(after.message).toMatch(/reactivated/);
  });

  it('is NOT_FOUND for an email without a workspace', async () => {
    await expectCollabError(createClient({ baseUrl: server.url }).workspace.getEmailVerificationStatus({ ownerEmail: 'nobody@example.com' }), 'NOT_FOUND');
  });

  it('rejects a missing ownerEmail', async () => {
    const res = await server.post(PATH, { data: {} });
    expect([res.status, res.body.error.status]).toEqual([400, 'INVALID_ARGUMENT']);
    expect(res.body.error.message).toMatch(/data\.ownerEmail is required/);
  });

  it('limits checks per email (RESOURCE_EXHAUSTED, 429) independently of other emails', async () => {
    const email = 'limited@example.com';
    for (let i = 0; i < 3; i++) expect((await server.post(PATH, { data: { ownerEmail: email } })).status).toBe(404);
    const limited = await server.post(PATH, { data: { ownerEmail: email } });
    expect([limited.status, limited.body.error.status]).toEqual([429, 'RESOURCE_EXHAUSTED']);
    expect(limited.headers.get('ratelimit')).toMatch(/limit=3/);
    // Case does not get around the per-email limit.
    expect((await server.post(PATH, { data: { ownerEmail: 'LIMITED@example.com' } })).status).toBe(429);
    expect((await server.post(PATH, { data: { ownerEmail: 'other@example.com' } })).status).toBe(404);
  });

  it('limits checks per IP across emails', async () => {
    let last = 0;
    for (let i = 0; i < 12 && last !== 429; i++) last = (await server.post(PATH, { data: { ownerEmail: `ip${i}@example.com` } })).status;
    expect(last).toBe(429);
  });
});
