import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSigningSecret, signatureHeader } from '../../server/domains/webhooks/secrets.js';
import { closedPort } from '../helpers/closed-port.js';
import { closeReceivers, startReceiver } from '../helpers/receiver.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

/**
 * The SDK as a consumer gets it: `npm pack` in sdk/ (its prepack script builds
 * sdk/dist), `npm install <tgz>` in a fresh ESM project, then plain `node` and
 * the repository's `tsc` against the installed package.
 */

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const tsc = join(repo, 'node_modules/typescript/bin/tsc');
// npm install fetches the dependencies, and tsc checks some 30 files: minutes on a loaded machine.
const TIMEOUT = 300_000;

interface RunResult {
  stdout: string;
  stderr: string;
}

/** Runs a command; rejects with its output on a non-zero exit (stderr alone is not a failure: npm warns there). */
function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    execFile(file, args, { cwd, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024, timeout: TIMEOUT }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(' ')} failed (${error.code ?? error.signal}):\n${stdout}\n${stderr}`));
      else resolvePromise({ stdout, stderr });
    });
  });
}

const consumerScript = `
import {
  applicationAudience,
  CollabError,
  CollabNetworkError,
  CollabTimeoutError,
  createClient,
  isWebhookEvent,
  UserTokenError,
  verifyUserToken,
  verifyWebhook,
  WebhookVerificationError,
} from '@collab-backend/sdk';

const { baseUrl, apiKey, authToken, otherApiKey, closedUrl, hangingUrl, webhook } = JSON.parse(process.env.SDK_TEST_CREDENTIALS);
const client = createClient({ baseUrl, apiKey, authToken });
const activity = await client.workspace.getActivityConfig();

/** What a failing call threw, as plain data: its name, fields and which exported classes it is an instance of. */
async function failure(call) {
  try {
    await call();
    return { thrown: false };
  } catch (error) {
    return {
      name: error.name,
      status: error.status,
      httpStatus: error.httpStatus,
      code: error.code,
      classes: Object.entries({ CollabError, CollabNetworkError, CollabTimeoutError, UserTokenError, WebhookVerificationError })
        .filter(([, type]) => error instanceof type)
        .map(([name]) => name),
    };
  }
}

const wrongToken = await failure(() => createClient({ baseUrl, apiKey, authToken: 'at_wrong' }).workspace.getActivityConfig());
const unreachable = await failure(() => createClient({ baseUrl: closedUrl, apiKey, authToken, retry: { maxRetries: 0 } }).workspace.getActivityConfig());
const timedOut = await failure(() => createClient({ baseUrl: hangingUrl, apiKey, authToken, timeout: 50 }).workspace.getActivityConfig());

for (let i = 1; i <= 5; i++) await client.organizations.addOrganization({ organizationId: 'org-' + i });
const iterated = [];
for await (const organization of client.organizations.getOrganizations.iterate({ pageSize: 2 })) iterated.push(organization.organizationId);
const pageSizes = [];
for await (const page of client.organizations.getOrganizations.pages({ pageSize: 2 })) pageSizes.push(page.data.length);

const { token } = (await client.permissions.generateToken({ userId: 'ann', userProperties: { name: 'Ann', email: 'ann@acme.test' }, permissions: { resources: [] } })).data;
const audience = await applicationAudience(apiKey);
const claims = await verifyUserToken(token, { baseUrl, audience });
const otherAudience = await applicationAudience(otherApiKey);
const wrongAudience = await failure(() => verifyUserToken(token, { jwksUrl: baseUrl + '/.well-known/jwks.json', audience: otherAudience }));
const [header, payload, signature] = token.split('.');
const flipped = payload.slice(0, 10) + (payload[10] === 'A' ? 'B' : 'A') + payload.slice(11);
const tampered = await failure(() => verifyUserToken([header, flipped, signature].join('.'), { baseUrl, audience }));

const event = verifyWebhook(Buffer.from(webhook.body), webhook.headers, webhook.secret);
const badWebhook = await failure(() => verifyWebhook(webhook.body + ' ', webhook.headers, webhook.secret));

console.log(JSON.stringify({
  activity, wrongToken, unreachable, timedOut, iterated, pageSizes,
  claims: { sub: claims.sub, name: claims.user.name, aud: claims.aud === audience }, wrongAudience, tampered,
  webhook: { event: event.event, isCommentAdd: isWebhookEvent(event, 'comment.add'), text: event.data.comment.commentText }, badWebhook,
}));
`;

// Type-checked, never run: proves the shipped declarations resolve under NodeNext
// and are precise (each @ts-expect-error fails the check if its line type-checks).
const consumerTypes = `
import {
  CollabError,
  CollabNetworkError,
  CollabResponseError,
  CollabTimeoutError,
  createClient,
  isWebhookEvent,
  UserTokenError,
  verifyUserToken,
  verifyWebhook,
  type Client,
  type ClientOptions,
  type ErrorStatus,
  type UserTokenClaims,
  type WebhookEvent,
} from '@collab-backend/sdk';

const options: ClientOptions = { baseUrl: 'http://localhost:3000', apiKey: 'ak', authToken: 'at', timeout: 5000, retry: { maxRetries: 1 } };
const client: Client = createClient(options);

export async function check(): Promise<boolean> {
  const result = await client.workspace.getActivityConfig(undefined, { signal: AbortSignal.timeout(1000) });
  const status: 'success' = result.status;
  const enabled: boolean = result.data.activityServiceConfig.isEnabled;
  // @ts-expect-error not a field of the result
  result.data.nope;

  const admin = createClient({ baseUrl: options.baseUrl, workspaceId: 'ws', workspaceAuthToken: 'wat' });
  const tokens = await admin.workspace.getAuthTokens({ apiKey: 'ak' });
  const first: string | undefined = tokens.data.authTokens[0]?.token;
  // @ts-expect-error apiKey is required
  await admin.workspace.getAuthTokens();
  // @ts-expect-error apiKey is a string
  await admin.workspace.getAuthTokens({ apiKey: 1 });

  // Paged lists iterate items typed by the contract; other operations have no iterate.
  for await (const document of client.organizations.getDocuments.iterate({ organizationId: 'acme' })) {
    const name: string = document.documentName;
    // @ts-expect-error not a field of a document
    document.nope;
    if (name === '') break;
  }
  for await (const page of client.comments.getCommentAnnotations.pages({ organizationId: 'acme', pageSize: 10 })) {
    const next: string | null = page.pageToken;
    if (next === null) break;
  }
  // @ts-expect-error organizationId is required on every page
  client.organizations.getDocuments.iterate({});
  // @ts-expect-error not a paged operation
  client.workspace.getActivityConfig.iterate;

  try {
    await client.workspace.getActivityConfig();
  } catch (error) {
    if (error instanceof CollabError) {
      const s: ErrorStatus = error.status;
      const http: number = error.httpStatus;
      const wait: number | undefined = error.retryAfterMs;
      const id: string | undefined = error.requestId;
      // @ts-expect-error not an error status
      const bad: ErrorStatus = 'TEAPOT';
      return s === 'PERMISSION_DENIED' && http === 403 && bad !== s && wait !== 0 && id !== '';
    }
    if (error instanceof CollabTimeoutError) return error.timeoutMs > 0;
    if (error instanceof CollabNetworkError) return error.beforeConnect && error.code === 'ECONNREFUSED';
    if (error instanceof CollabResponseError) return error.body.length > 0;
  }

  const claims: UserTokenClaims = await verifyUserToken('token', { baseUrl: options.baseUrl, audience: 'a'.repeat(64) });
  const role: 'viewer' | 'editor' | undefined = claims.permissions.resources[0]?.accessRole;
  // @ts-expect-error the audience is required
  await verifyUserToken('token', { baseUrl: options.baseUrl });
  // @ts-expect-error baseUrl or jwksUrl, not both
  await verifyUserToken('token', { baseUrl: options.baseUrl, jwksUrl: options.baseUrl, audience: 'a' });
  const tokenError = new UserTokenError('ERR_JWT_EXPIRED', 'expired');

  const event: WebhookEvent = verifyWebhook(new Uint8Array(), new Headers(), 'whsec_x');
  // @ts-expect-error not an event type of the contract
  isWebhookEvent(event, 'comment.nope');
  if (isWebhookEvent(event, 'comment_annotation.status_change')) {
    const previous: string = event.data.previousStatus;
    const annotationId: string = event.data.annotation.annotationId;
    return previous !== annotationId;
  }

  return status === 'success' && enabled && first !== undefined && role !== undefined && tokenError.code !== '';
}
`;

describe('the packed SDK', () => {
  let server: TestServer;
  let ws: WorkspaceCredentials;
  let temp: string;
  let project: string;
  let tarball: string;

  beforeAll(async () => {
    temp = await mkdtemp(join(tmpdir(), 'collab-sdk-pack-'));
    project = join(temp, 'consumer');
    [server] = await Promise.all([startTestServer(), mkdir(project)]);
    ws = await server.workspace();

    // prepack runs `npm run build` (clean + tsc -p tsconfig.json) before packing.
    await run('npm', ['pack', '--pack-destination', temp, '--no-audit', '--no-fund'], join(repo, 'sdk'));
    const tgz = (await readdir(temp)).filter((f) => f.endsWith('.tgz'));
    expect(tgz).toEqual(['collab-backend-sdk-0.1.0.tgz']);
    tarball = join(temp, tgz[0]!);

    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'sdk-consumer', version: '1.0.0', private: true, type: 'module' }, null, 2));
    await run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], project);
  }, TIMEOUT);

  afterAll(async () => {
    await server?.close();
    await closeReceivers();
    if (temp) await rm(temp, { recursive: true, force: true });
  });

  it('ships JavaScript and declarations, and no sources', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball], temp);
    const files = stdout.split('\n').filter(Boolean).sort();
    expect(files).toContain('package/dist/sdk/index.js');
    expect(files).toContain('package/dist/sdk/index.d.ts');
    expect(files).toContain('package/dist/contract/index.d.ts');
    expect(files).toContain('package/dist/contract/common/errors.js');
    expect(files).toContain('package/package.json');
    expect(files).toContain('package/README.md');
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);

    // Every target of the installed package's exports exists (TypeScript would
    // silently fall back to the .d.ts next to the `import` target otherwise).
    const installed = join(project, 'node_modules/@collab-backend/sdk');
    const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as { exports: Record<string, string | Record<string, string>> };
    const targets = Object.values(manifest.exports).flatMap((t) => (typeof t === 'string' ? [t] : Object.values(t)));
    expect(targets).toContain('./dist/sdk/index.d.ts');
    for (const target of targets) expect(existsSync(join(installed, target)), target).toBe(true);
  });

  it('works from plain node: results, iteration, the verifiers, and errors of the exported classes', async () => {
    await writeFile(join(project, 'consumer.mjs'), consumerScript);
    const other = await server.workspace();
    const hanging = await startReceiver(() => {}, '');
    // A delivery signed as the server's dispatcher signs one.
    const secret = newSigningSecret();
    const body = JSON.stringify({
      event: 'comment.add',
      actionType: 'add',
      source: 'comment',
      data: { comment: { commentText: 'Looks good' } },
      webhookId: 'msg_pack',
      timestamp: Date.now(),
      metadata: { apiKey: ws.apiKey, organizationId: 'acme', documentId: 'spec' },
    });
    const at = new Date();
    const headers = { 'webhook-id': 'msg_pack', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signatureHeader([secret], 'msg_pack', at, body) };
    const credentials = {
      baseUrl: server.url,
      apiKey: ws.apiKey,
      authToken: ws.authToken,
      otherApiKey: other.apiKey,
      closedUrl: `http://127.0.0.1:${await closedPort()}`,
      hangingUrl: hanging.url,
      webhook: { body, headers, secret },
    };
    const { stdout } = await run(process.execPath, ['consumer.mjs'], project, { SDK_TEST_CREDENTIALS: JSON.stringify(credentials) });
    const output = JSON.parse(stdout) as Record<string, unknown>;

    expect(output.activity).toMatchObject({ status: 'success', data: { activityServiceConfig: { isEnabled: false } } });
    expect(output.wrongToken).toEqual({ name: 'CollabError', status: 'PERMISSION_DENIED', httpStatus: 403, classes: ['CollabError'] });
    expect(output.unreachable).toEqual({ name: 'CollabNetworkError', code: 'ECONNREFUSED', classes: ['CollabNetworkError'] });
    expect(output.timedOut).toEqual({ name: 'CollabTimeoutError', classes: ['CollabTimeoutError'] });
    expect(output.iterated).toEqual(['org-1', 'org-2', 'org-3', 'org-4', 'org-5']);
    expect(output.pageSizes).toEqual([2, 2, 1]);
    expect(output.claims).toEqual({ sub: 'ann', name: 'Ann', aud: true });
    expect(output.wrongAudience).toEqual({ name: 'UserTokenError', code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', classes: ['UserTokenError'] });
    expect(output.tampered).toEqual({ name: 'UserTokenError', code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED', classes: ['UserTokenError'] });
    expect(output.webhook).toEqual({ event: 'comment.add', isCommentAdd: true, text: 'Looks good' });
    expect(output.badWebhook).toEqual({ name: 'WebhookVerificationError', classes: ['WebhookVerificationError'] });
  });

  it("type-checks a TypeScript consumer with module NodeNext, and every ts block of the SDK's README", async () => {
    await writeFile(join(project, 'consumer.ts'), consumerTypes);
    // Each README block is a module of its own; `client`, `admin` and `process.env` are the names the README presumes.
    const readme = await readFile(join(repo, 'sdk/README.md'), 'utf8');
    const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThan(20);
    await mkdir(join(project, 'readme'), { recursive: true });
    await writeFile(
      join(project, 'readme/globals.d.ts'),
      [
        "import type { Client } from '@collab-backend/sdk';",
        'declare global {',
        '  const client: Client;',
        '  const admin: Client;',
        '  const process: { env: Record<string, string | undefined> };',
        '}',
        'export {};',
      ].join('\n'),
    );
    const readmeFiles = blocks.map((_, index) => `readme/block-${index + 1}.ts`);
    await Promise.all(blocks.map((block, index) => writeFile(join(project, readmeFiles[index]!), `${block}\nexport {};\n`)));
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023', 'DOM'],
          types: [],
          strict: true,
          noUncheckedIndexedAccess: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: ['consumer.ts', 'readme/globals.d.ts', ...readmeFiles],
      }),
    );
    await run(process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.json'], project);
  });
}, TIMEOUT);
