import { request } from 'node:http';
import { deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract, type OperationMeta } from '../../contract/index.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

/**
 * Bodies an attacker or a broken client sends: strings a database cannot store
 * as sent, bytes that are not UTF-8, compressed bodies that do not decompress.
 * Each is refused with the error envelope (INVALID_ARGUMENT), never INTERNAL.
 */

const LIMIT = 4096;
let server: TestServer;
let ws: WorkspaceCredentials;
beforeAll(async () => {
  server = await startTestServer({ BODY_LIMIT_BYTES: String(LIMIT) });
  ws = await server.workspace();
});
afterAll(() => server?.close());

interface RawResponse {
  status: number;
  contentType: string | undefined;
  body: any;
}

/** Exactly these bytes and headers on the wire: fetch would not send a bad body or a lying Content-Encoding as given. */
function rawPost(path: string, body: Buffer | string, headers: Record<string, string> = {}): Promise<RawResponse> {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${path}`,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(bytes.length), ...appHeaders(ws), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // Left as text: the assertion on the envelope then shows it.
          }
          resolve({ status: res.statusCode!, contentType: res.headers['content-type'], body: parsed });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(bytes);
  });
}

const ADD_USERS = '/v2/users/add';
const GET_USERS = '/v2/users/get';

function expectInvalid(res: RawResponse, message: RegExp) {
  expect(res.contentType).toMatch(/^application\/json/);
  expect({ status: res.status, error: res.body?.error?.status }).toEqual({ status: 400, error: 'INVALID_ARGUMENT' });
  expect(res.body.error.message).toMatch(message);
}

describe('lone UTF-16 surrogates', () => {
  const withName = (name: string) => `{"data":{"organizationId":"o","users":[{"userId":"u","name":"${name}"}]}}`;

  it.each([
    ['a high half alone', withName('\\ud800')],
    ['a low half alone', withName('\\uDC00')],
    ['a high half followed by a character', withName('\\ud800x')],
    ['a high half followed by another escape', withName('\\ud800\\n')],
    ['two high halves', withName('\\ud800\\udbff')],
    ['the halves reversed', withName('\\udc00\\ud800')],
    ['the halves in two strings', '{"data":{"organizationId":"\\ud800","users":[{"userId":"\\udc00"}]}}'],
    ['a key inside data', '{"data":{"organizationId":"o","\\ud800":1,"users":[{"userId":"u"}]}}'],
    ['a top-level key', '{"\\udfff":1,"data":{"organizationId":"o","users":[{"userId":"u"}]}}'],
    ['an element of an array', '{"data":{"organizationId":"o","users":[{"userId":"u"}],"x":["ok","\\uD834"]}}'],
  ])('are refused: %s', async (_, body) => {
    expectInvalid(await rawPost(ADD_USERS, body), /valid Unicode: a UTF-16 surrogate/);
  });

  it('are refused on every operation, before it runs', async () => {
    const routes = Object.values(contract).flatMap((group) => Object.values(group as Record<string, { path: string; metadata: OperationMeta }>));
    for (const route of routes) {
      const headers: Record<string, string> =
        route.metadata.auth === 'workspace' ? { 'x-service-workspace-id': ws.workspaceId, 'x-service-workspace-auth-token': ws.workspaceAuthToken } : {};
      const res = await rawPost(route.path, '{"data":{"organizationId":"\\ud800"}}', headers);
      expect({ path: route.path, status: res.status, error: res.body?.error?.status }).toEqual({ path: route.path, status: 400, error: 'INVALID_ARGUMENT' });
    }
  });

  it('pairs, raw characters and escaped backslashes are stored exactly as sent', async () => {
    // An escaped pair, the same character raw, and the six characters \ud800 and \u0000 as text.
    const sent = '\\ud83d\\ude00 😀 \\\\ud800 \\\\u0000 é';
    const expected = '😀 😀 \\ud800 \\u0000 é';
    const added = await rawPost(ADD_USERS, `{"data":{"organizationId":"o","users":[{"userId":"\\ud83d\\ude00","name":"${sent}"}]}}`);
    expect(added.status).toBe(200);
    expect(Object.keys(added.body.result.data)).toEqual(['😀']);
    const listed = await rawPost(GET_USERS, '{"data":{"organizationId":"o"}}');
    expect(listed.body.result.data).toEqual([expect.objectContaining({ userId: '😀', name: expected })]);
  });
});

describe('keys named __proto__', () => {
  // Without the refusal, zod's record parsing drops such a key (or object spreads make it the prototype):
  // free-form data such as a map CRDT value would lose it while the call succeeds.
  it.each([
    ['inside a free-form value', '{"data":{"organizationId":"o","documentId":"d","editorId":"e","type":"map","data":{"__proto__":{"x":1},"k":2}}}'],
    ['escaped', '{"data":{"organizationId":"o","documentId":"d","editorId":"e","type":"map","data":{"\\u005f_proto__":1}}}'],
    ['deep inside', '{"data":{"organizationId":"o","documentId":"d","editorId":"e","type":"array","data":[{"a":[{"__proto__":null}]}]}}'],
    ['at the top level', '{"__proto__":{},"data":{}}'],
  ])('are refused: %s', async (_, body) => {
    expectInvalid(await rawPost('/v2/crdt/add', body), /"__proto__"/);
  });

  it('are only refused as keys: the string "__proto__" as a value is data', async () => {
    const res = await rawPost('/v2/crdt/add', '{"data":{"organizationId":"o","documentId":"d","editorId":"e","type":"text","data":"__proto__"}}');
    expect(res.body?.error?.message ?? '').not.toMatch(/__proto__/);
  });
});

describe('numbers beyond what JSON text can carry back', () => {
  // JSON.parse reads 1e400 as Infinity, which JSON.stringify (every stored JSON value, every response)
  // writes as null: a free-form value (an agent's metadata) would silently change while the call succeeds.
  const agent = (metadata: string) =>
    `{"data":{"name":"a","description":"d","enabled":true,"instructions":"i","contextGathering":{"strategies":["web-page-text"]},"execution":{},"metadata":${metadata}}}`;

  it.each([
    ['inside a free-form value', agent('{"n":1e400}')],
    ['negative, deep inside', agent('{"a":[{"b":[-1e999]}]}')],
  ])('are refused: %s', async (_, body) => {
    expectInvalid(await rawPost('/v2/agents/create', body), /finite number/);
  });

  it('the largest finite double is data, read back exactly', async () => {
    const res = await rawPost('/v2/agents/create', agent('{"n":1.7976931348623157e308}'));
    expect(res.body.result?.data.agent.metadata).toEqual({ n: Number.MAX_VALUE });
  });
});

describe('bytes that are not UTF-8', () => {
  const around = (bytes: number[]) =>
    Buffer.concat([Buffer.from('{"data":{"organizationId":"o","users":[{"userId":"u","name":"'), Buffer.from(bytes), Buffer.from('"}]}}')]);

  it.each([
    ['a stray byte', [0xff]],
    ['a surrogate encoded as UTF-8 (CESU-8)', [0xed, 0xa0, 0x80]],
    ['an overlong encoding', [0xc0, 0xaf]],
    ['a truncated sequence', [0xe2, 0x82]],
  ])('are refused, not stored as U+FFFD: %s', async (_, bytes) => {
    expectInvalid(await rawPost(ADD_USERS, around(bytes)), /not valid UTF-8/);
  });

  it('another charset is refused: JSON is UTF-8', async () => {
    const body = Buffer.from('{"data":{"organizationId":"o","users":[{"userId":"u"}]}}', 'utf16le');
    expectInvalid(await rawPost(ADD_USERS, body, { 'content-type': 'application/json; charset=utf-16le' }), /must be UTF-8 JSON/);
  });
});

describe('compressed bodies', () => {
  const json = '{"data":{"organizationId":"o"}}';

  it('gzip and deflate bodies are read', async () => {
    for (const [encoding, bytes] of [
      ['gzip', gzipSync(json)],
      ['deflate', deflateSync(json)],
    ] as const) {
      const res = await rawPost(GET_USERS, bytes, { 'content-encoding': encoding });
      expect({ encoding, status: res.status }).toEqual({ encoding, status: 200 });
    }
  });

  it.each([
    ['gzip with garbage', 'gzip', Buffer.from('this is not gzip at all')],
    ['deflate with garbage', 'deflate', Buffer.from('this is not deflate either')],
    ['truncated gzip', 'gzip', gzipSync(json).subarray(0, 15)],
    ['gzip with a corrupt checksum', 'gzip', Buffer.concat([gzipSync(json).subarray(0, -8), Buffer.alloc(8)])],
  ])('%s is INVALID_ARGUMENT', async (_, encoding, bytes) => {
    expectInvalid(await rawPost(GET_USERS, bytes, { 'content-encoding': encoding }), new RegExp(`not valid ${encoding} data`));
  });

  it.each(['br', 'compress', 'zstd', 'gzip, gzip'])('content-encoding %j is INVALID_ARGUMENT naming it', async (encoding) => {
    const res = await rawPost(GET_USERS, gzipSync(json), { 'content-encoding': encoding });
    expectInvalid(res, /content-encoding ".*" is not supported/);
    expect(res.body.error.message).toContain(JSON.stringify(encoding));
  });

  it('a gzip bomb stops at the body limit, counted after decompression', async () => {
    // 3 MB of spaces is 3 KB of gzip: within the limit compressed, 750 times over it inflated.
    const bomb = gzipSync(Buffer.alloc(3 * 1024 * 1024, 0x20), { level: 9 });
    expect(bomb.length).toBeLessThan(LIMIT);
    expectInvalid(await rawPost(GET_USERS, bomb, { 'content-encoding': 'gzip' }), new RegExp(`exceeds the limit of ${LIMIT} bytes`));
    // The server is still serving.
    expect((await rawPost(GET_USERS, json)).status).toBe(200);
  });
});
