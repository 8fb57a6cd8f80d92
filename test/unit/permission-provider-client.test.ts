import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../server/lib/app-error.js';
import {
  answerKey,
  createPermissionProviderClient,
  type ProviderRequest,
  type ProviderTarget,
} from '../../server/domains/permission-provider/client.js';
import { closeReceivers, startReceiver } from '../helpers/receiver.js';

interface Call {
  headers: IncomingMessage['headers'];
  body: string;
  json: { data: { requests: ProviderRequest[] } };
}

type Reply = (call: Call, res: ServerResponse) => void;

/** A real provider on 127.0.0.1 that records every call. */
async function provider(reply: Reply) {
  const calls: Call[] = [];
  const { port } = await startReceiver((req, res) => {
    const call = { headers: req.headers, body: req.body, json: JSON.parse(req.body) as Call['json'] };
    calls.push(call);
    reply(call, res);
  }, '/permissions');
  const target: ProviderTarget = { apiKeyId: 'app_1', url: `http://127.0.0.1:${port}/permissions`, authToken: 's3cret' };
  return { target, port, calls };
}

afterEach(closeReceivers);

const json = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/** Grants access to everything asked, as an editor, except resources named "deny*". */
const grantAll: Reply = (call, res) =>
  json(res, 200, {
    data: call.json.data.requests.map((r) => ({
      userId: r.userId,
      resourceId: r.resource.id,
      type: r.resource.type,
      hasAccess: !r.resource.id.startsWith('deny'),
    })),
  });

const doc = (userId: string, id: string): ProviderRequest => ({
  userId,
  resource: { id, type: 'document', organizationId: 'org1' },
});

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

function clock(start = 1_700_000_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('permission provider client', () => {
  it('sends the bearer token and the exact request body, and returns the answers', async () => {
    const { target, calls } = await provider((_call, res) =>
      json(res, 200, {
        data: [
          { userId: 'u1', resourceId: 'd1', type: 'document', hasAccess: true, accessRole: 'viewer' },
          { userId: 'u1', resourceId: 'f1', type: 'folder', hasAccess: true },
          { userId: 'u2', resourceId: 'd1', type: 'document', hasAccess: false },
        ],
      }),
    );
    const client = createPermissionProviderClient({ allowPrivateUrls: true });
    const answers = await client.ask(target, [
      doc('u1', 'd1'),
      { userId: 'u1', resource: { id: 'f1', type: 'folder', organizationId: 'org1' } },
      doc('u2', 'd1'),
    ]);

    expect(calls).toHaveLength(1);
    expect(calls[0]?.headers.authorization).toBe('Bearer s3cret');
    expect(calls[0]?.headers['content-type']).toBe('application/json');
    expect(calls[0]?.body).toBe(
      JSON.stringify({
        data: {
          requests: [
            { userId: 'u1', resource: { id: 'd1', type: 'document', organizationId: 'org1' } },
            { userId: 'u1', resource: { id: 'f1', type: 'folder', organizationId: 'org1' } },
            { userId: 'u2', resource: { id: 'd1', type: 'document', organizationId: 'org1' } },
          ],
        },
      }),
    );
    expect(answers.size).toBe(3);
    expect(answers.get(answerKey('u1', 'document', 'd1'))).toEqual({
      userId: 'u1', resourceId: 'd1', type: 'document', hasAccess: true, accessRole: 'viewer',
    });
    // Access without a role means editor.
    expect(answers.get(answerKey('u1', 'folder', 'f1'))).toMatchObject({ hasAccess: true, accessRole: 'editor' });
    expect(answers.get(answerKey('u2', 'document', 'd1'))).toEqual({
      userId: 'u2', resourceId: 'd1', type: 'document', hasAccess: false,
    });
  });

  it('asks once for duplicate requests and not at all for none', async () => {
    const { target, calls } = await provider(grantAll);
    const client = createPermissionProviderClient({ allowPrivateUrls: true });
    expect((await client.ask(target, [])).size).toBe(0);
    const answers = await client.ask(target, [doc('u1', 'd1'), doc('u1', 'd1')]);
    expect(answers.size).toBe(1);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.json.data.requests).toHaveLength(1);
  });

  it('serves repeated questions from the cache until the TTL passes or the config changes', async () => {
    const { target, calls } = await provider(grantAll);
    const time = clock();
    const client = createPermissionProviderClient({ allowPrivateUrls: true, cacheTtlMs: 30_000, now: time.now });

    await client.ask(target, [doc('u1', 'd1')]);
    const again = await client.ask(target, [doc('u1', 'd1')]);
    expect(again.get(answerKey('u1', 'document', 'd1'))?.hasAccess).toBe(true);
    expect(calls).toHaveLength(1);

    // Another application with the same provider has its own cache.
    await client.ask({ ...target, apiKeyId: 'app_2' }, [doc('u1', 'd1')]);
    expect(calls).toHaveLength(2);

    client.invalidate('app_1');
    await client.ask(target, [doc('u1', 'd1')]);
    expect(calls).toHaveLength(3);
    await client.ask({ ...target, apiKeyId: 'app_2' }, [doc('u1', 'd1')]);
    expect(calls).toHaveLength(3); // app_2 untouched by app_1's invalidation

    time.advance(30_000);
    await client.ask(target, [doc('u1', 'd1')]);
    expect(calls).toHaveLength(4);
  });

  it('asks only for what is not cached, and merges the answers', async () => {
    const { target, calls } = await provider(grantAll);
    const client = createPermissionProviderClient({ allowPrivateUrls: true });
    await client.ask(target, [doc('u1', 'd1'), doc('u1', 'deny2')]);
    const answers = await client.ask(target, [doc('u1', 'd1'), doc('u1', 'd3'), doc('u1', 'deny2'), doc('u2', 'd1')]);

    expect(calls).toHaveLength(2);
    expect(calls[1]?.json.data.requests).toEqual([doc('u1', 'd3'), doc('u2', 'd1')]);
    expect([...answers.keys()].sort()).toEqual(
      [answerKey('u1', 'document', 'd1'), answerKey('u1', 'document', 'd3'), answerKey('u1', 'document', 'deny2'), answerKey('u2', 'document', 'd1')].sort(),
    );
    expect(answers.get(answerKey('u1', 'document', 'deny2'))?.hasAccess).toBe(false);
    expect(answers.get(answerKey('u2', 'document', 'd1'))?.hasAccess).toBe(true);
  });

  it('treats an answer past its expiresAt as no access, also once cached', async () => {
    const time = clock(1_700_000_000_000);
    const nowSeconds = 1_700_000_000;
    const { target } = await provider((_call, res) =>
      json(res, 200, {
        data: [
          { userId: 'u1', resourceId: 'old', type: 'document', hasAccess: true, accessRole: 'editor', expiresAt: nowSeconds - 1 },
          { userId: 'u1', resourceId: 'soon', type: 'document', hasAccess: true, accessRole: 'viewer', expiresAt: nowSeconds + 10 },
        ],
      }),
    );
    const client = createPermissionProviderClient({ allowPrivateUrls: true, now: time.now });
    const answers = await client.ask(target, [doc('u1', 'old'), doc('u1', 'soon')]);
    expect(answers.get(answerKey('u1', 'document', 'old'))).toMatchObject({ hasAccess: false });
    expect(answers.get(answerKey('u1', 'document', 'old'))?.accessRole).toBeUndefined();
    expect(answers.get(answerKey('u1', 'document', 'soon'))).toMatchObject({ hasAccess: true, accessRole: 'viewer' });

    time.advance(10_000);
    const later = await client.ask(target, [doc('u1', 'soon')]);
    expect(later.get(answerKey('u1', 'document', 'soon'))?.hasAccess).toBe(false);
  });

  it('fails with UNAVAILABLE when the provider does not answer in time', async () => {
    const { target } = await provider(() => {});
    const client = createPermissionProviderClient({ allowPrivateUrls: true, timeoutMs: 200 });
    const error = await rejection(client.ask(target, [doc('u1', 'd1')]));
    expect(error.status).toBe('UNAVAILABLE');
    expect(error.message).toBe('permission provider did not answer within 200 ms');
  });

  it('fails with UNAVAILABLE on HTTP 500, and does not cache the failure', async () => {
    let fail = true;
    const { target, calls } = await provider((call, res) => (fail ? json(res, 500, { error: 'boom' }) : grantAll(call, res)));
    const client = createPermissionProviderClient({ allowPrivateUrls: true });
    const error = await rejection(client.ask(target, [doc('u1', 'd1')]));
    expect(error.status).toBe('UNAVAILABLE');
    expect(error.message).toBe('permission provider answered HTTP 500');

    fail = false;
    const answers = await client.ask(target, [doc('u1', 'd1')]);
    expect(answers.get(answerKey('u1', 'document', 'd1'))?.hasAccess).toBe(true);
    expect(calls).toHaveLength(2);
  });

  it('fails with UNAVAILABLE on a redirect instead of following it', async () => {
    const { target } = await provider((_call, res) => res.writeHead(302, { location: 'http://169.254.169.254/' }).end());
    const client = createPermissionProviderClient({ allowPrivateUrls: true });
    const error = await rejection(client.ask(target, [doc('u1', 'd1')]));
    expect(error.message).toBe('permission provider answered HTTP 302');
  });

  it('fails with UNAVAILABLE on a non-JSON answer', async () => {
    const { target } = await provider((_call, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>hi</h1>'));
    const client = createPermissionProviderClient({ allowPrivateUrls: true });
    const error = await rejection(client.ask(target, [doc('u1', 'd1')]));
    expect(error.status).toBe('UNAVAILABLE');
    expect(error.message).toBe('permission provider answer is not JSON');
  });

  it.each([
    [{ data: [{ userId: 'u1', resourceId: 'd1', type: 'document', hasAccess: 'yes' }] }, 'data[0].hasAccess must be boolean'],
    [{ data: [{ userId: 'u1', resourceId: 'd1', type: 'document' }] }, 'data[0].hasAccess is required'],
    [{ data: [{ userId: 'u1', resourceId: 'd1', type: 'document', hasAccess: true, accessRole: 'owner' }] }, "data[0].accessRole must be one of 'viewer', 'editor'"],
    [{ data: [{ userId: 'u1', resourceId: 'd1', type: 'document', hasAccess: true, expiresAt: '2030-01-01' }] }, 'data[0].expiresAt must be number'],
    [{ data: [{ userId: 'u1', resourceId: 'd1', type: 'page', hasAccess: true }] }, "data[0].type must be one of 'organization', 'folder', 'document'"],
    [{ result: [] }, 'data is required'],
    [[], 'the answer must be object'],
    [
      {
        data: [
          { userId: 'u1', resourceId: 'd1', type: 'document', hasAccess: false },
          { userId: 'u1', resourceId: 'd1', type: 'document', hasAccess: true },
        ],
      },
      'data[1] contradicts an earlier answer for document d1 of user u1',
    ],
  ])('fails with UNAVAILABLE on a malformed answer (%j)', async (body, reason) => {
    const { target } = await provider((_call, res) => json(res, 200, body));
    const client = createPermissionProviderClient({ allowPrivateUrls: true });
    const error = await rejection(client.ask(target, [doc('u1', 'd1')]));
    expect(error.status).toBe('UNAVAILABLE');
    expect(error.message).toBe(`permission provider answer is malformed: ${reason}`);
  });

  it('fails with UNAVAILABLE when an answer is missing, caching none of the others', async () => {
    const { target, calls } = await provider((call, res) =>
      json(res, 200, {
        data: call.json.data.requests
          .filter((r) => r.resource.id !== 'd2')
          .map((r) => ({ userId: r.userId, resourceId: r.resource.id, type: r.resource.type, hasAccess: true })),
      }),
    );
    const client = createPermissionProviderClient({ allowPrivateUrls: true });
    const error = await rejection(client.ask(target, [doc('u1', 'd1'), doc('u1', 'd2')]));
    expect(error.status).toBe('UNAVAILABLE');
    expect(error.message).toBe('permission provider gave no answer for document d2 of user u1');

    await client.ask(target, [doc('u1', 'd1')]);
    expect(calls).toHaveLength(2);
  });

  it('does not take an answer about another type as the answer asked for', async () => {
    const { target } = await provider((_call, res) =>
      json(res, 200, { data: [{ userId: 'u1', resourceId: 'x1', type: 'folder', hasAccess: true }] }),
    );
    const client = createPermissionProviderClient({ allowPrivateUrls: true });
    const error = await rejection(client.ask(target, [doc('u1', 'x1')]));
    expect(error.message).toBe('permission provider gave no answer for document x1 of user u1');
  });

  it('fails with UNAVAILABLE when the provider is unreachable', async () => {
    const { target } = await provider(grantAll);
    await closeReceivers();
    const logged: object[] = [];
    const client = createPermissionProviderClient({ allowPrivateUrls: true, log: { warn: (detail) => void logged.push(detail) } });
    const error = await rejection(client.ask(target, [doc('u1', 'd1')]));
    expect(error.status).toBe('UNAVAILABLE');
    // The reason (ECONNREFUSED), address and port go to the log, not to the caller.
    expect(error.message).toBe('permission provider at 127.0.0.1 could not be reached');
    expect(logged).toEqual([expect.objectContaining({ apiKeyId: 'app_1', kind: 'network', code: 'ECONNREFUSED', port: expect.any(Number) })]);
  });

  it('fails with UNAVAILABLE when the answer is too large', async () => {
    const { target } = await provider((_call, res) => res.end(Buffer.alloc(1024 * 1024 + 10, 0x20)));
    const client = createPermissionProviderClient({ allowPrivateUrls: true });
    const error = await rejection(client.ask(target, [doc('u1', 'd1')]));
    expect(error.status).toBe('UNAVAILABLE');
    expect(error.message).toMatch(/^permission provider answer is too large/);
  });

  it('refuses a private provider URL with FAILED_PRECONDITION unless private URLs are allowed', async () => {
    const { target, port, calls } = await provider(grantAll);
    const client = createPermissionProviderClient({ allowPrivateUrls: false });
    for (const url of [target.url, `http://localhost:${port}/permissions`]) {
      const error = await rejection(client.ask({ ...target, url }, [doc('u1', 'd1')]));
      expect(error.status).toBe('FAILED_PRECONDITION');
      expect(error.message).toMatch(/^permission provider URL host .+ resolves to a private address; /);
      expect(error.message).toContain('WEBHOOK_ALLOW_PRIVATE_URLS');
    }
    expect(calls).toHaveLength(0);
  });

  it('does not cache answers that arrive after the configuration was invalidated', async () => {
    let release: (() => void) | undefined;
    let hold = true;
    const { target, calls } = await provider((call, res) => {
      if (hold) release = () => grantAll(call, res);
      else grantAll(call, res);
    });
    const client = createPermissionProviderClient({ allowPrivateUrls: true });
    const pending = client.ask(target, [doc('u1', 'd1')]);
    while (release === undefined) await new Promise((resolve) => setImmediate(resolve));
    client.invalidate('app_1');
    hold = false;
    release();
    await pending;

    await client.ask(target, [doc('u1', 'd1')]);
    expect(calls).toHaveLength(2);
  });

  it('bounds the cache, dropping the oldest answers', async () => {
    const { target, calls } = await provider(grantAll);
    const client = createPermissionProviderClient({ allowPrivateUrls: true, maxCacheEntries: 2 });
    await client.ask(target, [doc('u1', 'a'), doc('u1', 'b')]);
    await client.ask(target, [doc('u1', 'c')]); // evicts a
    await client.ask(target, [doc('u1', 'b'), doc('u1', 'c')]);
    expect(calls).toHaveLength(2);
    await client.ask(target, [doc('u1', 'a')]);
    expect(calls).toHaveLength(3);
  });
});
