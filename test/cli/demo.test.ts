import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '../../contract/index.js';
import { loadConfig } from '../../server/config.js';
import { runCli } from '../../server/cli.js';
import { openMigratedDatabase } from '../../server/db/startup.js';
import { createDemo, type DemoResult } from '../../server/demo/create-demo.js';
import { demoText } from '../../server/demo/demo-text.js';
import { shellQuote } from '../../server/demo/try-it.js';
import { createLogger } from '../../server/http/logging.js';
import { systemClock } from '../../server/lib/clock.js';
import { openVerifiedSealer } from '../../server/lib/master-key.js';
import { createServices } from '../../server/services.js';
import { createTestDatabase } from '../helpers/database.js';
import { recordSecretsIn } from '../helpers/log-capture.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const exec = promisify(execFile);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

/** Runs a printed line as a newcomer would paste it: through a shell, with the real curl. */
async function runLine(line: string): Promise<any> {
  const { stdout } = await exec('sh', ['-c', line]);
  recordSecretsIn(stdout);
  return JSON.parse(stdout);
}

function lineFor(demo: DemoResult, path: string): string {
  const found = demo.tryIt.filter((t) => t.curl.includes(`${demo.baseUrl}${path}'`));
  expect(found, path).toHaveLength(1);
  return found[0]!.curl;
}

describe('demo', () => {
  it('creates a sample workspace whose printed curl lines return its data', async () => {
    const demo = await server.cli<DemoResult>('demo', '--base-url', `${server.url}/`);
    expect(Object.keys(demo.credentials).sort()).toEqual(['apiKey', 'authToken', 'workspaceAuthToken', 'workspaceId']);
    expect(demo.baseUrl).toBe(server.url);
    expect(demo.ownerEmail).toMatch(/^demo-[0-9a-f]{8}@example\.com$/);
    expect(demo.created.organizations.map((o) => o.organizationId)).toEqual(['org-acme', 'org-globex']);
    expect(demo.created.users).toHaveLength(4);
    expect(demo.created.commentAnnotations.flatMap((a) => a.commentIds)).toHaveLength(5);
    expect(demo.created.reactions).toHaveLength(1);
    expect(demo.tryIt.length).toBeGreaterThanOrEqual(5);
    for (const { curl } of demo.tryIt) {
      expect(curl).toContain(shellQuote(`x-service-api-key: ${demo.credentials.apiKey}`));
      expect(curl).toContain(shellQuote(`x-service-auth-token: ${demo.credentials.authToken}`));
    }

    const documents = await runLine(lineFor(demo, contract.organizations.getDocuments.path));
    // In creation order, and by ID among documents created in the same millisecond (the list's order: createdAt, then id).
    const createdAt = new Map<string, number>(documents.result.data.map((d: any) => [d.id, d.createdAt]));
    const byListOrder = (a: string[], b: string[]) => createdAt.get(a[0]!)! - createdAt.get(b[0]!)! || (a[0]! < b[0]! ? -1 : 1);
    expect(documents.result.data.map((d: any) => [d.id, d.documentName])).toEqual(
      [
        ['doc-q3-plan', 'Q3 plan'],
        ['doc-launch-checklist', 'Launch checklist'],
        ['doc-design-review', 'Design review'],
      ].sort(byListOrder),
    );

    const threads = await runLine(lineFor(demo, contract.comments.getCommentAnnotations.path));
    expect(threads.result.data).toHaveLength(1);
    const [thread] = threads.result.data;
    expect(thread).toMatchObject({ annotationId: 'ann-launch-date', documentId: 'doc-q3-plan', from: { userId: 'user-ada', name: 'Ada Lovelace' } });
    expect(thread.comments.map((c: any) => [c.commentId, c.from.userId])).toEqual([
      ['cmt-1', 'user-ada'],
      ['cmt-2', 'user-grace'],
    ]);
    expect(thread.comments[1].reactions).toMatchObject([{ icon: '👍', from: { userId: 'user-alan' } }]);

    const notifications = await runLine(lineFor(demo, contract.notifications.getNotifications.path));
    const received = notifications.result.data;
    const expected = demo.created.notifications.find((n) => n.organizationId === 'org-acme' && n.userId === 'user-grace');
    expect(received.map((n: any) => n.id).sort()).toEqual([...expected!.notificationIds].sort());
    expect(received.map((n: any) => n.notificationSource).sort()).toEqual(['comment', 'comment', 'comment', 'custom']);
    expect(received.map((n: any) => n.displayHeadlineMessageTemplate)).toContain('{actionUser} shared the {document} with you');

    const activities = await runLine(lineFor(demo, contract.activities.getActivityLogs.path));
    const logged = demo.created.activityIds.find((a) => a.organizationId === 'org-acme')!.activityIds;
    expect(logged.length).toBeGreaterThanOrEqual(6);
    expect(activities.result.data.map((a: any) => a.id)).toEqual(logged);
    expect(activities.result.data.map((a: any) => a.actionType)).toContain('checklist.shared');

    const token = await runLine(lineFor(demo, contract.permissions.generateToken.path));
    const payload = JSON.parse(Buffer.from(String(token.result.data.token).split('.')[1]!, 'base64url').toString());
    expect(payload).toMatchObject({ sub: 'user-ada' });

    // Every line was checked above.
    expect(demo.tryIt).toHaveLength(5);
  });

  it('makes a new, independent workspace on every run', async () => {
    const first = await server.cli<DemoResult>('demo', '--base-url', server.url);
    const second = await server.cli<DemoResult>('demo', '--base-url', server.url);
    expect(second.credentials.workspaceId).not.toBe(first.credentials.workspaceId);
    expect(second.credentials.apiKey).not.toBe(first.credentials.apiKey);
    expect(second.ownerEmail).not.toBe(first.ownerEmail);
    for (const demo of [first, second]) {
      const threads = await runLine(lineFor(demo, contract.comments.getCommentAnnotations.path));
      expect(threads.result.data.map((t: any) => t.comments.length)).toEqual([2]);
    }
  });

  it('takes an owner email, verified, and refuses one that has a workspace without writing anything', async () => {
    const ownerEmail = `demo-owner-${process.pid}@example.com`;
    const demo = await server.cli<DemoResult>('demo', '--owner-email', ownerEmail, '--base-url', server.url);
    expect(demo.ownerEmail).toBe(ownerEmail);
    const record = await server.cli<Record<string, unknown>>('workspace', 'get', '--api-key', demo.credentials.apiKey);
    expect(record).toMatchObject({ workspaceId: demo.credentials.workspaceId, ownerEmail, emailVerified: true, name: 'Demo workspace' });

    const again = await runCli(['demo', '--owner-email', ` ${ownerEmail.toUpperCase()} `, '--base-url', server.url], server.env);
    expect([again.code, again.stdout, again.stderr]).toEqual([1, '', `error: ALREADY_EXISTS: a workspace already exists for ${ownerEmail}\n`]);
  });

  it('points the curl lines at the address the server listens on with this environment', async () => {
    const run = (env: NodeJS.ProcessEnv, ...args: string[]) => runCli(['demo', ...args], { ...server.env, ...env });
    const any = await run({ PORT: '9123', HOST: '0.0.0.0' });
    expect(any.code).toBe(0);
    recordSecretsIn(any.stdout);
    const demo = JSON.parse(any.stdout) as DemoResult;
    expect(demo.baseUrl).toBe('http://127.0.0.1:9123');
    for (const { curl } of demo.tryIt) expect(curl).toMatch(/^curl -sS -g 'http:\/\/127\.0\.0\.1:9123\/v2\//);
    const v6 = await run({ PORT: '8081', HOST: '::' });
    recordSecretsIn(v6.stdout);
    expect(JSON.parse(v6.stdout).baseUrl).toBe('http://[::1]:8081');

    const unknownPort = await run({ PORT: '0' });
    expect([unknownPort.code, unknownPort.stdout]).toEqual([2, '']);
    expect(unknownPort.stderr).toMatch(/^error: PORT=0 .* pass --base-url/);
    for (const bad of ['localhost:8080', 'ftp://example.com', 'http://127.0.0.1:8080/?x=1']) {
      const result = await run({}, '--base-url', bad);
      expect([result.code, result.stdout], bad).toEqual([2, '']);
      expect(result.stderr).toMatch(/^error: --base-url must be an http:\/\/ or https:\/\/ URL/);
    }
  });

  it('is described by help', async () => {
    for (const args of [['help', 'demo'], ['demo', '--help'], ['demo', '--owner-email', 'x@example.com', '--help']]) {
      const help = await runCli(args);
      expect([help.code, help.stderr], args.join(' ')).toEqual([0, '']);
      expect(help.stdout).toMatch(/^usage: demo \[--owner-email E\] \[--base-url URL\]\n/);
    }
    expect((await runCli(['--help'])).stdout).toContain('demo [--owner-email E] [--base-url URL]');
  });

  it('reads as text for npm run demo, with the credentials and every curl line', async () => {
    const demo = await server.cli<DemoResult>('demo', '--base-url', server.url);
    const text = demoText(demo);
    for (const secret of Object.values(demo.credentials)) expect(text).toContain(secret);
    for (const { title, curl } of demo.tryIt) expect(text).toContain(`# ${title}\n${curl}\n`);
    expect(text).toContain('Grace Hopper: 4 in Acme Corp');
    expect(text).toContain('3 threads (ann-launch-date on doc-q3-plan, ann-header-contrast on doc-design-review, ann-welcome-call on doc-onboarding), 5 comments, 1 reaction');
  });
});

describe('demo atomicity', () => {
  it('leaves nothing behind when a step fails halfway', async () => {
    const database = await createTestDatabase();
    const config = loadConfig({ DATABASE_URL: database.url, COLLAB_DATA_DIR: database.dataDir });
    const { database: opened } = await openMigratedDatabase(config.databaseUrl);
    try {
      const sealer = await openVerifiedSealer(opened.db, { envValue: config.masterKey, dataDir: config.dataDir }, systemClock);
      const services = createServices({ config, db: opened.db, uow: opened.uow, sealer, logger: createLogger('silent'), clock: systemClock });
      // After the workspace, the organizations, users and comment threads are written.
      services.notifications.addNotification = async () => {
        throw new Error('the database went away');
      };
      const ownerEmail = 'halfway@example.com';
      await expect(createDemo(services, opened.uow, { ownerEmail, baseUrl: 'http://127.0.0.1:8080' })).rejects.toThrow('the database went away');
      await expect(services.accounts.verifyOwnerEmail(ownerEmail)).rejects.toMatchObject({ status: 'NOT_FOUND' });
      expect(await opened.db.workspace.count()).toBe(0);
      expect(await opened.db.organization.count()).toBe(0);
      expect(await opened.db.commentAnnotation.count()).toBe(0);
      expect(await opened.db.notification.count()).toBe(0);

      // The same steps without the failure write everything.
      const demo = await createDemo(createServices({ config, db: opened.db, uow: opened.uow, sealer, logger: createLogger('silent'), clock: systemClock }), opened.uow, {
        ownerEmail,
        baseUrl: 'http://127.0.0.1:8080',
      });
      recordSecretsIn(JSON.stringify(demo));
      expect(await opened.db.workspace.count()).toBe(1);
      expect(await opened.db.organization.count()).toBe(2);
    } finally {
      await opened.close();
      await database.drop();
    }
  });
});
