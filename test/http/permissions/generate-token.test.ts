import { createHash } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
/** What a client app configures its verifier with: the hex SHA-256 of its API key (docs/api.md, User tokens). */
let audience: string;

beforeAll(async () => {
  server = await startTestServer();
  ws = await server.workspace();
  client = server.client(ws);
  audience = createHash('sha256').update(ws.apiKey).digest('hex');
});
afterAll(() => server?.close());

const user = { userId: 'u1', userProperties: { name: 'Ada Lovelace', email: 'ada@example.com' } };

describe('Generate Token', () => {
  it('issues an ES256 JWT valid for 48 hours, verifiable with the published JWKS', async () => {
    const { data } = await client.permissions.generateToken({
      ...user,
      permissions: {
        resources: [
          { type: 'organization', id: 'org1' },
          { type: 'document', id: 'doc1', organizationId: 'org1', accessRole: 'viewer' },
        ],
      },
    });
    const jwks = createRemoteJWKSet(new URL(`/.well-known/jwks/${audience}.json`, server.url));
    const { payload, protectedHeader } = await jwtVerify(data.token, jwks, { issuer: 'collab-backend', audience });
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload.exp! - payload.iat!).toBe(48 * 3600);
    expect(payload.sub).toBe('u1');
    expect(payload.user).toEqual({ userId: 'u1', name: 'Ada Lovelace', email: 'ada@example.com', initial: 'A', isAdmin: false });
    // accessRole defaults to editor.
    expect(payload.permissions).toEqual({
      resources: [
        { type: 'organization', id: 'org1', accessRole: 'editor' },
        { type: 'document', id: 'doc1', organizationId: 'org1', accessRole: 'viewer' },
      ],
    });
    expect(await server.running.verifyUserToken(data.token, { audience })).toMatchObject({ sub: 'u1', aud: audience });
  });

  it('grants what the token carries, so Get Permissions agrees with it', async () => {
    await client.permissions.generateToken({ ...user, permissions: { resources: [{ type: 'document', id: 'doc2', organizationId: 'org2', accessRole: 'viewer' }] } });
    const { data } = await client.permissions.getPermissions({ organizationId: 'org2', userIds: ['u1'], documentIds: ['doc2'] });
    expect(data.u1!.documents!.doc2!.accessRole).toBe('viewer');
  });

  it('refuses organizationId inside userProperties, saying where it goes', async () => {
    await expectCollabError(
      client.permissions.generateToken({ userId: 'u1', userProperties: { ...user.userProperties, organizationId: 'org1' }, permissions: { resources: [] } }),
      'INVALID_ARGUMENT',
      /data\.userProperties\.organizationId: must not be in userProperties: put the organization in permissions\.resources/,
    );
  });

  it('requires organizationId on document and folder entries, and a name and email', async () => {
    await expectCollabError(
      client.permissions.generateToken({ ...user, permissions: { resources: [{ type: 'document', id: 'd' }] } }),
      'INVALID_ARGUMENT',
      /data\.permissions\.resources\[0\]\.organizationId: is required when type is document/,
    );
    await expectCollabError(client.permissions.generateToken({ userId: 'u1', userProperties: { name: 'x' }, permissions: { resources: [] } } as never), 'INVALID_ARGUMENT', /email is required/);
  });

  it('keeps tokens of a rotated key valid while signing new ones with the new key', async () => {
    const before = (await client.permissions.generateToken({ ...user, permissions: { resources: [] } })).data.token;
    const { kid } = await server.cli<{ kid: string }>('signing-key', 'rotate', '--api-key', ws.apiKey);
    // The CLI is another process: both the new and the retired key are published.
    const jwks = (await (await fetch(new URL('/.well-known/jwks.json', server.url))).json()) as { keys: Array<{ kid: string; d?: string }> };
    expect(jwks.keys.map((k) => k.kid)).toContain(kid);
    expect(jwks.keys.map((k) => k.kid)).toContain(decodeProtectedHeader(before).kid);
    expect(jwks.keys.every((k) => k.d === undefined)).toBe(true);
    await expect(server.running.verifyUserToken(before, { audience })).resolves.toMatchObject({ sub: 'u1' });
  });

  it('rejects a tampered token', async () => {
    const { token } = (await client.permissions.generateToken({ ...user, permissions: { resources: [] } })).data;
    const [h, p, s] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), sub: 'admin' })).toString('base64url');
    await expect(server.running.verifyUserToken(`${h}.${forged}.${s}`, { audience })).rejects.toThrow();
  });

  it('signs each application with its own keys', async () => {
    const otherWs = await server.workspace();
    const other = server.client(otherWs);
    const a = (await client.permissions.generateToken({ ...user, permissions: { resources: [] } })).data.token;
    const b = (await other.permissions.generateToken({ ...user, permissions: { resources: [] } })).data.token;
    const kidA = decodeProtectedHeader(a).kid!;
    const kidB = decodeProtectedHeader(b).kid!;
    expect(kidA.split('.')[0]).not.toBe(kidB.split('.')[0]);
    const audienceB = createHash('sha256').update(otherWs.apiKey).digest('hex');
    expect((await server.running.verifyUserToken(b, { audience: audienceB })).app).not.toBe((await server.running.verifyUserToken(a, { audience })).app);
  });
});

describe('tokens are bound to their application', () => {
  let tokenB: string;
  let audienceB: string;
  beforeAll(async () => {
    const wsB = await server.workspace();
    audienceB = createHash('sha256').update(wsB.apiKey).digest('hex');
    // The same user ID in both applications: only the audience tells the tokens apart.
    tokenB = (await server.client(wsB).permissions.generateToken({ ...user, permissions: { resources: [{ type: 'organization', id: 'org1' }] } })).data.token;
    await client.permissions.generateToken({ ...user, permissions: { resources: [] } });
  });

  it('names its application in aud, which the operator CLI also shows', async () => {
    expect(decodeJwt(tokenB).aud).toBe(audienceB);
    const record = await server.cli<{ apiKey: { tokenAudience: string } }>('workspace', 'get', '--api-key', ws.apiKey);
    expect(record.apiKey.tokenAudience).toBe(audience);
  });

  it("a token of application B does not verify for application A's users", async () => {
    await expect(server.running.verifyUserToken(tokenB, { audience })).rejects.toThrow();
    await expect(server.running.verifyUserToken(tokenB, { audience: audienceB })).resolves.toMatchObject({ sub: 'u1' });
    await expect(server.running.verifyUserToken(tokenB, { audience: 'f'.repeat(64) })).rejects.toThrow(/no application/);
  });

  it("A's JWKS does not verify B's token; with the global JWKS the audience refuses it", async () => {
    const jwksA = createRemoteJWKSet(new URL(`/.well-known/jwks/${audience}.json`, server.url));
    await expect(jwtVerify(tokenB, jwksA, { issuer: 'collab-backend', audience })).rejects.toThrow();
    const global = createRemoteJWKSet(new URL('/.well-known/jwks.json', server.url));
    await expect(jwtVerify(tokenB, global, { issuer: 'collab-backend', audience })).rejects.toThrow(/aud/);
    await expect(jwtVerify(tokenB, global, { issuer: 'collab-backend', audience: audienceB })).resolves.toBeDefined();
  });

  it("an application's JWKS holds its own published keys only", async () => {
    const fetchKids = async (path: string) => ((await (await fetch(new URL(path, server.url))).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);
    const kidsA = await fetchKids(`/.well-known/jwks/${audience}.json`);
    const kidsB = await fetchKids(`/.well-known/jwks/${audienceB}.json`);
    const all = await fetchKids('/.well-known/jwks.json');
    expect(kidsB).toEqual([decodeProtectedHeader(tokenB).kid]);
    expect(kidsA.length).toBeGreaterThan(0);
    expect(kidsA.filter((kid) => kidsB.includes(kid))).toEqual([]);
    const prefixA = kidsA[0]!.split('.')[0];
    expect(kidsA.every((kid) => kid.split('.')[0] === prefixA)).toBe(true);
    expect(all).toEqual(expect.arrayContaining([...kidsA, ...kidsB]));
  });

  it('an unknown audience has no JWKS (NOT_FOUND)', async () => {
    for (const name of ['0'.repeat(64), 'not-an-audience']) {
      const res = await fetch(new URL(`/.well-known/jwks/${name}.json`, server.url));
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { status: string } }).error.status).toBe('NOT_FOUND');
    }
  });
});

describe('GET /.well-known/jwks.json', () => {
  it('is the one GET, cacheable, with public keys only', async () => {
    const res = await fetch(new URL('/.well-known/jwks.json', server.url));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const body = (await res.json()) as { keys: object[] };
    expect(body.keys.length).toBeGreaterThan(0);
    for (const key of body.keys) expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
  });
});
