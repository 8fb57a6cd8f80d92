import { exportSPKI, importJWK, SignJWT, type JWK, type JWTPayload } from 'jose';
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_TOKEN_ISSUER } from '../../contract/permissions/user-token.js';
import { openVerifiedSealer } from '../../server/lib/master-key.js';
import { applicationAudience, verifyUserToken } from '../../sdk/index.js';
import { connectEditor } from '../helpers/live-client.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

/**
 * Every verifier of user tokens (from Generate Token), given the classic
 * forgeries: `alg: none`, HS256 with the service's public key as the HMAC
 * secret (the key as JWK text, as PEM, as raw bytes), an embedded or foreign
 * key, another application's key ID, an expired token, the wrong audience or
 * issuer. Each must be refused; a genuine token, and one this test signs
 * with the application's own private key, must be accepted, so a verifier
 * that refuses everything fails here too.
 *
 * The verifiers (`grep -rn "jwtVerify\|compactVerify\|createRemoteJWKSet\|importJWK" server sdk`):
 * the service's own (server/domains/permissions/signing-keys.ts `verify`,
 * which the real-time layer's connection authentication uses, reached here
 * through a WebSocket and through the running server's `verifyUserToken`),
 * and the SDK's `verifyUserToken` (sdk/user-token.ts), with the
 * application's key set and with the all-applications one.
 */
const KEY = { organizationId: 'org-1', documentId: 'doc-1', editorId: 'main' };

let server: TestServer;
let a: WorkspaceCredentials;
let b: WorkspaceCredentials;
let genuine: string;
let genuineB: string;
let audienceA: string;
let audienceB: string;
/** The claims of A's genuine token, which the forgeries reuse. */
let claims: JWTPayload & { app: string };
let kidA: string;
let kidB: string;
let publicJwkA: JWK;
let privateKeyA: SigningKey;

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const parts = (token: string) => token.split('.').map((part, i) => (i < 2 ? JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) : part));

/** A token whose header and claims are given and whose signature is an HMAC-SHA256 under `secret`. */
function hs256(secret: Buffer | string, header: Record<string, unknown>, payload: JWTPayload): string {
  const input = `${b64({ ...header, alg: 'HS256' })}.${b64(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

type SigningKey = Parameters<SignJWT['sign']>[0];

function es256(key: SigningKey, header: Record<string, unknown>, payload: JWTPayload): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: 'JWT', ...header } as never).sign(key);
}

async function tokenFor(credentials: WorkspaceCredentials): Promise<string> {
  const { data } = await server.client(credentials).permissions.generateToken({
    userId: 'ann',
    userProperties: { name: 'Ann', email: 'ann@example.com' },
    permissions: { resources: [{ type: 'document', id: KEY.documentId, organizationId: KEY.organizationId, accessRole: 'editor' }] },
  });
  return data.token;
}

beforeAll(async () => {
  server = await startTestServer();
  [a, b] = await Promise.all([server.workspace(), server.workspace()]);
  genuine = await tokenFor(a);
  genuineB = await tokenFor(b);
  [audienceA, audienceB] = await Promise.all([applicationAudience(a.apiKey), applicationAudience(b.apiKey)]);
  const [headerA, payloadA] = parts(genuine);
  claims = payloadA;
  kidA = headerA.kid;
  kidB = parts(genuineB)[0].kid;
  const jwks = (await (await fetch(`${server.url}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
  publicJwkA = jwks.keys.find((k) => k.kid === kidA)!;
  expect(publicJwkA).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
  // The application's private key, as the service keeps it (sealed), so this test can sign as the service does.
  const sealer = await openVerifiedSealer(server.running.database.db, { envValue: server.env.COLLAB_MASTER_KEY, dataDir: server.env.COLLAB_DATA_DIR! }, server.running.services.clock);
  const row = await server.running.database.db.signingKey.findFirst({ where: { kid: kidA } });
  privateKeyA = await importJWK(JSON.parse(sealer.open(row!.privateJwkSealed)) as JWK, 'ES256');
});
afterAll(() => server?.close());

type Case = [name: string, token: () => Promise<string> | string];

const now = () => Math.floor(Date.now() / 1000);
const ACCEPTED: Case[] = [
  ['a genuine token of Generate Token', () => genuine],
  ["a token this test signs with the application's own key, as the service does", () => es256(privateKeyA, { kid: kidA }, { ...claims, iat: now(), exp: now() + 3600 })],
];

const REFUSED: Case[] = [
  ['alg none, unsigned', () => `${b64({ alg: 'none', typ: 'JWT', kid: kidA })}.${b64(claims)}.`],
  ['alg none, with the genuine signature', () => `${b64({ alg: 'none', typ: 'JWT', kid: kidA })}.${b64(claims)}.${genuine.split('.')[2]}`],
  ['HS256 keyed with the public key as JWK text (as published)', () => hs256(JSON.stringify(publicJwkA), { typ: 'JWT', kid: kidA }, claims)],
  [
    'HS256 keyed with the public key as JWK text (its required members only)',
    () => hs256(JSON.stringify({ crv: publicJwkA.crv, kty: publicJwkA.kty, x: publicJwkA.x, y: publicJwkA.y }), { typ: 'JWT', kid: kidA }, claims),
  ],
  ['HS256 keyed with the public key as PEM (SPKI)', async () => hs256(await exportSPKI((await importJWK(publicJwkA, 'ES256')) as Parameters<typeof exportSPKI>[0]), { typ: 'JWT', kid: kidA }, claims)],
  ['HS256 keyed with the raw x||y bytes', () => hs256(Buffer.concat([Buffer.from(publicJwkA.x!, 'base64url'), Buffer.from(publicJwkA.y!, 'base64url')]), { typ: 'JWT', kid: kidA }, claims)],
  [
    'HS256 keyed with the uncompressed point 04||x||y',
    () => hs256(Buffer.concat([Buffer.from([4]), Buffer.from(publicJwkA.x!, 'base64url'), Buffer.from(publicJwkA.y!, 'base64url')]), { typ: 'JWT', kid: kidA }, claims),
  ],
  ["ES256 by the attacker's own key, naming A's key ID", () => es256(attackerKey(), { kid: kidA }, claims)],
  ["ES256 by the attacker's own key, embedded in the header (jwk)", () => es256(attackerKey(), { kid: kidA, jwk: attackerJwk() }, claims)],
  ["A's key, but the key ID of another application", () => es256(privateKeyA, { kid: kidB }, claims)],
  ["A's key, without a key ID", () => es256(privateKeyA, {}, claims)],
  ["A's key, expired", () => es256(privateKeyA, { kid: kidA }, { ...claims, iat: now() - 7200, exp: now() - 3600 })],
  ["A's key, with another application's audience", () => es256(privateKeyA, { kid: kidA }, { ...claims, aud: audienceB })],
  ["A's key, with an audience of nobody's", () => es256(privateKeyA, { kid: kidA }, { ...claims, aud: 'f'.repeat(64) })],
  ["A's key, with another issuer", () => es256(privateKeyA, { kid: kidA }, { ...claims, iss: `${USER_TOKEN_ISSUER}-other` })],
  ['the genuine token with its claims changed (a role raised)', () => `${genuine.split('.')[0]}.${b64({ ...claims, user: { ...(claims as any).user, isAdmin: true } })}.${genuine.split('.')[2]}`],
];

let attacker: ReturnType<typeof generateKeyPairSync> | undefined;
function attackerKey() {
  attacker ??= generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return attacker.privateKey;
}
function attackerJwk(): JWK {
  attackerKey();
  return attacker!.publicKey.export({ format: 'jwk' }) as JWK;
}

/** Each verifier: resolves true when it accepts the token as user `ann` of application A, false when it refuses it. */
const VERIFIERS: Array<[string, (token: string) => Promise<boolean>]> = [
  [
    "the service's verifier (signing keys), for application A",
    (token) =>
      server.running.verifyUserToken(token, { audience: audienceA }).then(
        (c) => c.sub === 'ann' && c.app === claims.app,
        () => false,
      ),
  ],
  [
    "the real-time layer's connection authentication (WebSocket /crdt)",
    async (token) => {
      const editor = connectEditor(server.url, KEY, token);
      try {
        return await editor.ready.then(
          () => true,
          () => false,
        );
      } finally {
        editor.close();
      }
    },
  ],
  [
    "the SDK's verifyUserToken with the application's key set",
    (token) =>
      verifyUserToken(token, { baseUrl: server.url, audience: audienceA }).then(
        (c) => c.sub === 'ann',
        () => false,
      ),
  ],
  [
    "the SDK's verifyUserToken with the all-applications key set",
    (token) =>
      verifyUserToken(token, { jwksUrl: `${server.url}/.well-known/jwks.json`, audience: audienceA }).then(
        (c) => c.sub === 'ann',
        () => false,
      ),
  ],
];

describe.each(VERIFIERS)('%s', (_name, verify) => {
  it.each(ACCEPTED)('accepts %s', async (_case, token) => {
    expect(await verify(await token())).toBe(true);
  });

  it.each(REFUSED)('refuses %s', async (_case, token) => {
    expect(await verify(await token())).toBe(false);
  });

  it("refuses another application's genuine token for application A (a socket admits it as B's user)", async () => {
    if (_name.includes('real-time')) {
      // The socket takes the application from the token (each application's documents live apart, see
      // server/realtime/hub.ts): B's genuine token opens B's document of that name, which is no forgery.
      expect(await verify(genuineB)).toBe(true);
      return;
    }
    expect(await verify(genuineB)).toBe(false);
  });
});
