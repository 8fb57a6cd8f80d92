// The SDK's verifiers: user tokens from Generate Token on the real server
// (its published keys, audience, algorithm, expiry), and webhook deliveries
// (a real one from the server, and samples signed as the server signs).
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { TCommentAnnotation } from '../../contract/comments/schemas.js';
import { applicationAudience as serverAudience } from '../../server/domains/permissions/signing-keys.js';
import { newSigningSecret, signatureHeader } from '../../server/domains/webhooks/secrets.js';
import {
  applicationAudience,
  isWebhookEvent,
  UserTokenError,
  verifyUserToken,
  verifyWebhook,
  WebhookVerificationError,
  type Client,
  type WebhookEvent,
} from '../../sdk/index.js';
import { closedPort } from '../helpers/closed-port.js';
import { eventually } from '../helpers/eventually.js';
import { startReceiver, type Received } from '../helpers/receiver.js';
import type { WorkspaceCredentials } from '../helpers/server.js';
import { startWebhookServer, type WebhookTestServer } from '../helpers/webhook-server.js';

let server: WebhookTestServer;
beforeAll(async () => {
  server = await startWebhookServer();
});
afterAll(() => server?.close());

async function thrownBy(promise: Promise<unknown> | (() => unknown)): Promise<unknown> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure, but it succeeded');
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const decodePart = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, any>;

async function tokenFor(client: Client, userId = 'ann'): Promise<string> {
  const { data } = await client.permissions.generateToken({
    userId,
    userProperties: { name: 'Ann', email: 'ann@acme.test', color: '#ff0000' },
    permissions: { resources: [{ type: 'document', id: 'spec', organizationId: 'acme', accessRole: 'viewer' }] },
  });
  return data.token;
}

describe('verifyUserToken', () => {
  let a: WorkspaceCredentials;
  let b: WorkspaceCredentials;
  let token: string;
  let audienceA: string;
  let audienceB: string;

  beforeAll(async () => {
    [a, b] = await Promise.all([server.workspace(), server.workspace()]);
    token = await tokenFor(server.client(a));
    await tokenFor(server.client(b)); // B gets published keys of its own
    [audienceA, audienceB] = await Promise.all([applicationAudience(a.apiKey), applicationAudience(b.apiKey)]);
  });

  it("computes the application's audience as the server does", () => {
    expect(audienceA).toBe(serverAudience(a.apiKey));
    expect(audienceA).toMatch(/^[0-9a-f]{64}$/);
  });

  it("accepts a token of Generate Token with the application's key set, and returns its claims typed", async () => {
    const claims = await verifyUserToken(token, { baseUrl: server.url, audience: audienceA });
    expect(claims).toMatchObject({
      iss: 'collab-backend',
      sub: 'ann',
      aud: audienceA,
      user: { userId: 'ann', name: 'Ann', email: 'ann@acme.test', color: '#ff0000', isAdmin: false, initial: expect.any(String) },
      permissions: { resources: [{ type: 'document', id: 'spec', organizationId: 'acme', accessRole: 'viewer' }] },
    });
    expect(claims.exp - claims.iat).toBe(48 * 60 * 60);
    expectTypeOf(claims.permissions.resources[0]!.accessRole).toEqualTypeOf<'viewer' | 'editor'>();
    expectTypeOf(claims.user.isAdmin).toEqualTypeOf<boolean>();
    // The all-applications key set, with the audience required all the same.
    expect((await verifyUserToken(token, { jwksUrl: `${server.url}/.well-known/jwks.json`, audience: audienceA })).sub).toBe('ann');
  });

  it("refuses another application's token: by its key set, and by the audience when the key set has every application's keys", async () => {
    const byKeySet = await thrownBy(verifyUserToken(token, { baseUrl: server.url, audience: audienceB }));
    expect(byKeySet).toBeInstanceOf(UserTokenError);
    expect((byKeySet as UserTokenError).code).toBe('ERR_JWKS_NO_MATCHING_KEY');

    const byAudience = await thrownBy(verifyUserToken(token, { jwksUrl: `${server.url}/.well-known/jwks.json`, audience: audienceB }));
    expect(byAudience).toBeInstanceOf(UserTokenError);
    expect((byAudience as UserTokenError).code).toBe('ERR_JWT_CLAIM_VALIDATION_FAILED');
  });

  it('refuses a tampered token', async () => {
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = decodePart(payload);
    const tampered = [header, base64url({ ...claims, user: { ...claims.user, isAdmin: true } }), signature].join('.');
    const error = (await thrownBy(verifyUserToken(tampered, { baseUrl: server.url, audience: audienceA }))) as UserTokenError;
    expect(error).toBeInstanceOf(UserTokenError);
    expect(error.code).toBe('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
  });

  it('refuses alg none and any algorithm other than ES256', async () => {
    const [header, payload] = token.split('.') as [string, string, string];
    const kid = decodePart(header).kid as string;
    for (const alg of ['none', 'HS256', 'ES384']) {
      const forged = `${base64url({ alg, kid, typ: 'JWT' })}.${payload}.${alg === 'none' ? '' : Buffer.from('sig').toString('base64url')}`;
      const error = (await thrownBy(verifyUserToken(forged, { baseUrl: server.url, audience: audienceA }))) as UserTokenError;
      expect(error, alg).toBeInstanceOf(UserTokenError);
      expect(error.code, alg).toBe('ERR_JOSE_ALG_NOT_ALLOWED');
    }
  });

  it('refuses an expired token', async () => {
    const later = new Date(Date.now() + 49 * 60 * 60 * 1000);
    const error = (await thrownBy(verifyUserToken(token, { baseUrl: server.url, audience: audienceA, currentDate: later }))) as UserTokenError;
    expect(error.code).toBe('ERR_JWT_EXPIRED');
  });

  it('reports a key set it cannot fetch as ERR_JWKS_UNAVAILABLE: an audience no application has, a server not there', async () => {
    const unknown = (await thrownBy(verifyUserToken(token, { baseUrl: server.url, audience: '0'.repeat(64) }))) as UserTokenError;
    expect([unknown.code, unknown.message]).toEqual(['ERR_JWKS_UNAVAILABLE', expect.stringMatching(/HTTP 404.*applicationAudience/)]);

    const port = await closedPort();
    const gone = (await thrownBy(verifyUserToken(token, { baseUrl: `http://127.0.0.1:${port}`, audience: audienceA }))) as UserTokenError;
    expect(gone.code).toBe('ERR_JWKS_UNAVAILABLE');
  });

  it('refuses the API key given as the audience, without repeating it', async () => {
    const error = (await thrownBy(verifyUserToken(token, { baseUrl: server.url, audience: a.apiKey }))) as Error;
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).not.toContain(a.apiKey);
  });
});

describe('verifyWebhook', () => {
  const secret = newSigningSecret();
  const payload = JSON.stringify({
    event: 'comment.add',
    actionType: 'add',
    source: 'comment',
    data: { note: 'naïve ✓' },
    webhookId: 'msg_sample',
    timestamp: 1_700_000_000_000,
    metadata: { apiKey: 'ak_sample', organizationId: 'acme', documentId: 'spec' },
  });
  /** Headers as the server's dispatcher sends them. */
  const signed = (body: string, at = new Date(), id = 'msg_sample', secrets = [secret]) => ({
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatureHeader(secrets, id, at, body),
  });

  it('accepts a signed body as a string, bytes or Buffer, with headers as a record in any case or a Headers', () => {
    const headers = signed(payload);
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    const results = [
      verifyWebhook(payload, headers, secret),
      verifyWebhook(new TextEncoder().encode(payload), upper, secret),
      verifyWebhook(Buffer.from(payload), new Headers(headers), secret),
    ];
    for (const event of results) expect(event).toEqual(JSON.parse(payload));
  });

  it('accepts a signature by any of the secrets in use (the old and new ones after a rotation)', () => {
    expect(verifyWebhook(payload, signed(payload, new Date(), 'msg_sample', [newSigningSecret(), secret]), secret).webhookId).toBe('msg_sample');
  });

  it('refuses a changed body, another secret, a missing or repeated header, and an old or future timestamp', () => {
    const headers = signed(payload);
    const refusals: Array<[string, () => unknown]> = [
      ['changed body', () => verifyWebhook(payload.replace('naïve', 'naive'), headers, secret)],
      ['another secret', () => verifyWebhook(payload, headers, newSigningSecret())],
      ['no signature', () => verifyWebhook(payload, { 'webhook-id': headers['webhook-id'], 'webhook-timestamp': headers['webhook-timestamp'] }, secret)],
      ['repeated header', () => verifyWebhook(payload, { ...headers, 'webhook-signature': [headers['webhook-signature'], headers['webhook-signature']] }, secret)],
      ['another id', () => verifyWebhook(payload, { ...headers, 'webhook-id': 'msg_other' }, secret)],
      ['10 minutes old', () => verifyWebhook(payload, signed(payload, new Date(Date.now() - 10 * 60_000)), secret)],
      ['10 minutes ahead', () => verifyWebhook(payload, signed(payload, new Date(Date.now() + 10 * 60_000)), secret)],
    ];
    for (const [what, attempt] of refusals) {
      let thrown: unknown;
      try {
        attempt();
      } catch (error) {
        thrown = error;
      }
      expect(thrown, what).toBeInstanceOf(WebhookVerificationError);
    }
  });

  it('refuses a signed body that is not UTF-8, not JSON, or not a webhook payload', () => {
    const notUtf8 = new Uint8Array([0x7b, 0xff, 0x7d]);
    const cases: Array<[string, string | Uint8Array, Record<string, string>, RegExp]> = [
      ['not UTF-8', notUtf8, signed('{\ufffd}'), /not UTF-8/],
      ['not JSON', 'hello', signed('hello'), /not JSON/],
      ['not a payload', '{"hello":1}', signed('{"hello":1}'), /not a webhook payload/],
    ];
    for (const [what, body, headers, message] of cases) {
      let thrown: unknown;
      try {
        verifyWebhook(body, headers, secret);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, what).toBeInstanceOf(WebhookVerificationError);
      expect((thrown as Error).message, what).toMatch(message);
    }
  });

  it('refuses a secret that is not a signing secret, without repeating it', () => {
    let thrown: unknown;
    try {
      verifyWebhook(payload, signed(payload), '');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
  });

  it('verifies a real delivery and types its data by the event', async () => {
    const { ws, client } = await server.webhookApp();
    const receiver = await startReceiver((_req, res) => res.writeHead(204).end());
    const endpoint = (await client.webhooks.createWebhookEndpoint({ url: receiver.url, filterTypes: ['comment_annotation.add'] })).data;
    const { secret: endpointSecret } = (await client.webhooks.getWebhookEndpointSecret({ endpointId: endpoint.id })).data;

    await client.organizations.addOrganization({ organizationId: 'acme' });
    await client.organizations.addDocument({ organizationId: 'acme', documentId: 'spec' });
    const [thread] = (
      await client.comments.addCommentAnnotations({
        organizationId: 'acme',
        documentId: 'spec',
        commentAnnotations: [{ from: { userId: 'ann', name: 'Ann' }, commentData: [{ commentText: 'Check this' }] }],
      })
    ).data;
    await eventually(() => receiver.received.length >= 1, 'the delivery');
    const delivery: Received = receiver.received[0]!;

    // Node's req.headers and the raw Buffer, as a receiver gets them.
    const event: WebhookEvent = verifyWebhook(delivery.raw, delivery.headers, endpointSecret);
    expect(event.webhookId).toBe(delivery.headers['webhook-id']);
    expect(isWebhookEvent(event, 'comment.add')).toBe(false);
    if (!isWebhookEvent(event, 'comment_annotation.add')) throw new Error(`unexpected event ${event.event}`);
    expectTypeOf(event.data.annotation).toEqualTypeOf<TCommentAnnotation>();
    expect(event.data.annotation.annotationId).toBe(thread!.annotationId);
    expect(event.metadata).toEqual({ apiKey: ws.apiKey, organizationId: 'acme', documentId: 'spec' });

    expect(() => verifyWebhook(delivery.raw, delivery.headers, newSigningSecret())).toThrow(WebhookVerificationError);
  });
});
