import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

/**
 * The SDK as a consumer gets it: `npm pack` in sdk/ (its prepack script builds
 * sdk/dist), `npm install <tgz>` in a fresh ESM project, then plain `node` and
 * the repository's `tsc` against the installed package.
 */

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const tsc = join(repo, 'node_modules/typescript/bin/tsc');
const TIMEOUT = 120_000;

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
import { createClient, CollabError } from '@collab-backend/sdk';

const { baseUrl, apiKey, authToken } = JSON.parse(process.env.SDK_TEST_CREDENTIALS);
const client = createClient({ baseUrl, apiKey, authToken });
const activity = await client.workspace.getActivityConfig();

let wrongToken;
try {
  await createClient({ baseUrl, apiKey, authToken: 'at_wrong' }).workspace.getActivityConfig();
  wrongToken = { thrown: false };
} catch (error) {
  wrongToken = { thrown: true, status: error.status, httpStatus: error.httpStatus, isCollabError: error instanceof CollabError };
}

console.log(JSON.stringify({ activity, wrongToken }));
`;

// Type-checked, never run: proves the shipped declarations resolve under NodeNext
// and are precise (each @ts-expect-error fails the check if its line type-checks).
const consumerTypes = `
import { createClient, CollabError, type Client, type ClientOptions, type ErrorStatus } from '@collab-backend/sdk';

const options: ClientOptions = { baseUrl: 'http://localhost:3000', apiKey: 'ak', authToken: 'at' };
const client: Client = createClient(options);

export async function check(): Promise<boolean> {
  const result = await client.workspace.getActivityConfig();
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

  try {
    await client.workspace.getActivityConfig();
  } catch (error) {
    if (error instanceof CollabError) {
      const s: ErrorStatus = error.status;
      const http: number = error.httpStatus;
      // @ts-expect-error not an error status
      const bad: ErrorStatus = 'TEAPOT';
      return s === 'PERMISSION_DENIED' && http === 403 && bad !== s;
    }
  }
  return status === 'success' && enabled && first !== undefined;
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

  it('works from plain node: a result on success, a CollabError on failure', async () => {
    await writeFile(join(project, 'consumer.mjs'), consumerScript);
    const credentials = { baseUrl: server.url, apiKey: ws.apiKey, authToken: ws.authToken };
    const { stdout } = await run(process.execPath, ['consumer.mjs'], project, { SDK_TEST_CREDENTIALS: JSON.stringify(credentials) });
    const output = JSON.parse(stdout) as { activity: unknown; wrongToken: unknown };

    expect(output.activity).toMatchObject({ status: 'success', data: { activityServiceConfig: { isEnabled: false } } });
    expect(output.wrongToken).toEqual({ thrown: true, status: 'PERMISSION_DENIED', httpStatus: 403, isCollabError: true });
  });

  it('type-checks a TypeScript consumer with module NodeNext', async () => {
    await writeFile(join(project, 'consumer.ts'), consumerTypes);
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
          noEmit: true,
          skipLibCheck: false,
        },
        files: ['consumer.ts'],
      }),
    );
    await run(process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.json'], project);
  });
}, TIMEOUT);
