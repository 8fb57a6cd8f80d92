// The tested shell blocks (info string `sh readme-test`) of the README and
// then of the pages of docs/, in the order DOCUMENTS lists them, run as one
// script against a real server on a temp database, the way a reader pastes
// them: the quick start and the examples cannot rot.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { closedPort } from '../helpers/closed-port.js';
import { recordSecretsIn } from '../helpers/log-capture.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { DOCUMENTS, README, ROOT, codeBlocks, runScript, testedBlocks } from './readme.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
});
afterAll(async () => {
  await server?.close();
});

/** Each line of the output that is JSON, parsed. */
function jsonLines(output: string): any[] {
  return output.split('\n').flatMap((line) => {
    try {
      const value: unknown = JSON.parse(line);
      return typeof value === 'object' && value !== null ? [value] : [];
    } catch {
      return [];
    }
  });
}

it('runs the README and every page of docs/, the README first', () => {
  const pages = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  expect(DOCUMENTS[0]).toBe('README.md');
  expect([...DOCUMENTS.slice(1)].sort()).toEqual(pages.sort());
});

it('has tested blocks, the first of which (the README\'s quick start) defaults BASE for a reader', () => {
  const blocks = codeBlocks(README, 'sh readme-test');
  expect(blocks.length).toBeGreaterThan(0);
  expect(blocks[0]).toContain('export BASE=${BASE:-http://127.0.0.1:8080}');
  expect(testedBlocks()[0]).toBe(blocks[0]);
});

it('runs every tested block in order, and they print what the documents say', async () => {
  const script = testedBlocks().join('\n');
  const receiverPort = await closedPort();
  const { code, stdout, stderr } = await runScript(script, {
    BASE: server.url,
    DATABASE_URL: server.env.DATABASE_URL,
    COLLAB_DATA_DIR: server.env.COLLAB_DATA_DIR,
    RECEIVER_PORT: String(receiverPort),
  });
  // The credentials the blocks print join the suite's scan of the server logs.
  recordSecretsIn(stdout);
  expect(code, `the documents' blocks failed (exit ${code})\n--- stdout\n${stdout}\n--- stderr\n${stderr}`).toBe(0);
  const lines = stdout.split('\n');
  const json = jsonLines(stdout);
  const find = (what: string, test: (value: any) => boolean) => {
    const found = json.find((value) => {
      try {
        return test(value);
      } catch {
        return false;
      }
    });
    expect(found, `no output line with ${what}\n--- stdout\n${stdout}`).toBeDefined();
    return found;
  };

  // 1. The workspace's credentials, printed by the operator CLI.
  const workspace = find('the workspace credentials', (v) => v.workspaceId.startsWith('ws_'));
  expect(Object.keys(workspace).sort()).toEqual(['apiKey', 'authToken', 'workspaceAuthToken', 'workspaceId']);
  // 2. Add Users.
  find('alice and bob added', (v) => v.result.data.alice.success && v.result.data.bob.success);
  // 3. The user token: a JWT for alice.
  const jwt = lines.find((line) => /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/.test(line));
  expect(jwt, `no user token printed\n${stdout}`).toBeDefined();
  expect(JSON.parse(Buffer.from(jwt!.split('.')[1]!, 'base64url').toString())).toMatchObject({ sub: 'alice', iss: 'collab-backend' });
  // 4. Get Permissions.
  const permissions = find('the permissions', (v) => v.result.data.alice.documents['doc-1']);
  expect(permissions.result.data.alice.documents['doc-1'].accessRole).toBe('editor');
  expect(permissions.result.data.bob.documents['doc-1'].accessRole).toBe('viewer');
  // As the README shows it: added to the document only, so not to the organization.
  expect(permissions.result.data).toEqual({
    alice: {
      organization: { 'org-1': { error: 'user alice does not have access to organization org-1', errorCode: 'permission_denied' } },
      folders: {},
      documents: { 'doc-1': { accessRole: 'editor', accessType: 'organizationPrivate' } },
    },
    bob: {
      organization: { 'org-1': { error: 'user bob does not have access to organization org-1', errorCode: 'permission_denied' } },
      folders: {},
      documents: { 'doc-1': { accessRole: 'viewer', accessType: 'organizationPrivate' } },
    },
  });
  // 5. The comment thread.
  find('the comment thread', (v) => v.result.data[0].comments[0].commentText === 'Can we shorten this paragraph?');
  // 6. The webhook, verified by the receiver.
  expect(lines).toContain(`listening on http://127.0.0.1:${receiverPort}/webhooks`);
  const delivery = find('the verified delivery', (v) => v.verified === true);
  expect(delivery).toMatchObject({ event: 'comment.add', organizationId: 'org-1', documentId: 'doc-1' });
  expect(delivery.data.comment.commentText).toBe('Yes: cut the second sentence.');
  expect(delivery.webhookId).toMatch(/^msg_/);

  // The real-time client appends live to what REST added, and REST reads it back.
  expect(lines).toContain('joined org-1/doc-1/main, it reads "Draft."');
  expect(lines).toContain('the server has it: "Draft. Typed live by Alice."');
  expect(lines).toContain('Draft. Typed live by Alice.');

  // Error statuses and their HTTP codes (docs/api.md).
  expect(lines).toContain('{"error":{"message":"invalid API key or auth token","status":"PERMISSION_DENIED"}} HTTP 403');
  expect(lines).toContain('{"error":{"message":"unknown field(s) data.pagesize","status":"INVALID_ARGUMENT"}} HTTP 400');

  // An approval workflow: alice's approval resolves its review step (docs/workflows.md).
  find('the recorded review decision', (v) => v.result.data.aggregatorStatus === 'resolved' && v.result.data.stepStatus === 'completed');

  // Paging: two pages of one user, the second the last (docs/api.md).
  const first = find('the first page', (v) => v.result.data[0].userId === 'alice' && typeof v.result.pageToken === 'string');
  expect(first.result.data).toHaveLength(1);
  const last = find('the last page', (v) => v.result.data[0].userId === 'bob' && v.result.pageToken === null);
  expect(last.result.data).toHaveLength(1);
}, 300_000);

it('the first block runs again as pasted a second time: each run takes a new workspace', async () => {
  const { code, stdout, stderr } = await runScript(testedBlocks()[0]!, {
    BASE: server.url,
    DATABASE_URL: server.env.DATABASE_URL,
    COLLAB_DATA_DIR: server.env.COLLAB_DATA_DIR,
  });
  recordSecretsIn(stdout);
  expect(code, `the first block failed when run again (exit ${code})\n--- stdout\n${stdout}\n--- stderr\n${stderr}`).toBe(0);
  expect(stderr).toBe('');
  expect(jsonLines(stdout).filter((value) => value.error !== undefined)).toEqual([]);
}, 120_000);
