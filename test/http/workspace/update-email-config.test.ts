// Update Email Config: the States table's seeding (exactly), the partial
// merge, the checks of a config that could not send, the provider key sealed
// at rest and masked in every result, concurrent updates, credentials and
// tenancy. Get Email Config reads back what each update wrote.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMAIL_DEFAULT_TRIGGERS } from '../../../contract/workspace/schemas.js';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError, expectCredentialChecks } from '../../helpers/credentials.js';
import { usingPostgres } from '../../helpers/database.js';
import { recordSecret } from '../../helpers/log-capture.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

const PATH = '/v2/workspace/emailconfig/update';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

/** A fresh application, never configured. */
async function fresh(): Promise<{ ws: WorkspaceCredentials; client: Client }> {
  const ws = await server.workspace();
  return { ws, client: server.client(ws) };
}

const read = async (client: Client) => (await client.workspace.getEmailConfig()).data;

/** A provider key as SendGrid issues them, recorded for the suite's log scan. */
function providerKey(): string {
  const key = `SG.${randomBytes(16).toString('hex')}.${randomBytes(20).toString('hex')}`;
  recordSecret('provider key', key);
  return key;
}

async function storedRow(ws: WorkspaceCredentials): Promise<string> {
  const appId = (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', ws.apiKey)).apiKey.id;
  const row = await server.running.database.db.setting.findUniqueOrThrow({ where: { apiKeyId_kind: { apiKeyId: appId, kind: 'email' } } });
  return row.value;
}

const NEVER = { useEmailService: false, emailServiceConfig: { type: 'default', apiKey: '', fromEmail: '', fromCompany: '', triggers: {} } };

describe(`Update Email Config (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  describe('seeding the defaults (States table)', () => {
    it('useEmailService: true on a never-configured application seeds type custom, the service on and the default triggers', async () => {
      const { client } = await fresh();
      expect(await read(client)).toEqual(NEVER);
      const result = await client.workspace.updateEmailConfig({ useEmailService: true });
      expect(result.message).toBe('Email config updated successfully.');
      expect(result.data).toEqual({
        useEmailService: true,
        emailServiceConfig: {
          type: 'custom',
          apiKey: '',
          fromEmail: '',
          fromCompany: '',
          triggers: {
            'comment_annotation.add': true,
            'comment.add': true,
            'comment_annotation.status_change': true,
            'comment_annotation.assign': true,
            'comment_annotation.priority_change': true,
            'huddle.create': true,
            'huddle.join': true,
          },
        },
      });
      expect(result.data.emailServiceConfig.triggers).toEqual(EMAIL_DEFAULT_TRIGGERS);
      expect(await read(client)).toEqual(result.data);
    });

    it('type custom enables and seeds the same way, with the request applied over the defaults', async () => {
      const { client } = await fresh();
      const { data } = await client.workspace.updateEmailConfig({ emailServiceConfig: { type: 'custom', fromEmail: 'news@example.com' } });
      expect(data).toEqual({
        useEmailService: true,
        emailServiceConfig: { type: 'custom', apiKey: '', fromEmail: 'news@example.com', fromCompany: '', triggers: { ...EMAIL_DEFAULT_TRIGGERS } },
      });
    });

    it("the request's values win over the seeded ones: useEmailService, type and individual triggers", async () => {
      const { client } = await fresh();
      const { data } = await client.workspace.updateEmailConfig({
        useEmailService: true,
        emailServiceConfig: { type: 'default', triggers: { 'comment.add': false, 'comment.update': true } },
      });
      expect(data).toEqual({
        useEmailService: true,
        emailServiceConfig: { type: 'default', apiKey: '', fromEmail: '', fromCompany: '', triggers: { ...EMAIL_DEFAULT_TRIGGERS, 'comment.add': false, 'comment.update': true } },
      });

      const off = await fresh();
      const seededButOff = await off.client.workspace.updateEmailConfig({ useEmailService: false, emailServiceConfig: { type: 'custom' } });
      expect(seededButOff.data).toEqual({ useEmailService: false, emailServiceConfig: { type: 'custom', apiKey: '', fromEmail: '', fromCompany: '', triggers: { ...EMAIL_DEFAULT_TRIGGERS } } });
    });

    it('keeps the stored non-trigger fields (sender, company, key) when seeding', async () => {
      const { client } = await fresh();
      // Configured without enabling: nothing is seeded.
      const first = await client.workspace.updateEmailConfig({ emailServiceConfig: { fromEmail: 'team@example.com', fromCompany: 'Example Inc.' } });
      expect(first.data).toEqual({ useEmailService: false, emailServiceConfig: { type: 'default', apiKey: '', fromEmail: 'team@example.com', fromCompany: 'Example Inc.', triggers: {} } });

      const { data } = await client.workspace.updateEmailConfig({ useEmailService: true });
      expect(data).toEqual({
        useEmailService: true,
        emailServiceConfig: { type: 'custom', apiKey: '', fromEmail: 'team@example.com', fromCompany: 'Example Inc.', triggers: { ...EMAIL_DEFAULT_TRIGGERS } },
      });
    });

    it('keeps a stored type other than default (thirdparty with its key) when seeding', async () => {
      const { client } = await fresh();
      const key = providerKey();
      const first = await client.workspace.updateEmailConfig({ emailServiceConfig: { type: 'thirdparty', apiKey: key, fromEmail: 'team@example.com' } });
      expect(first.data).toMatchObject({ useEmailService: false, emailServiceConfig: { type: 'thirdparty', triggers: {} } });
      const { data } = await client.workspace.updateEmailConfig({ useEmailService: true });
      expect(data).toEqual({
        useEmailService: true,
        emailServiceConfig: { type: 'thirdparty', apiKey: `****${key.slice(-4)}`, fromEmail: 'team@example.com', fromCompany: '', triggers: { ...EMAIL_DEFAULT_TRIGGERS } },
      });
    });

    it('seeds when the stored triggers are empty, and never once there are some', async () => {
      const { client } = await fresh();
      await client.workspace.updateEmailConfig({ emailServiceConfig: { triggers: {} } });
      expect((await client.workspace.updateEmailConfig({ useEmailService: true })).data.emailServiceConfig.triggers).toEqual(EMAIL_DEFAULT_TRIGGERS);

      const other = await fresh();
      await other.client.workspace.updateEmailConfig({ emailServiceConfig: { triggers: { 'comment.add': false } } });
      const { data } = await other.client.workspace.updateEmailConfig({ useEmailService: true });
      expect(data).toEqual({ useEmailService: true, emailServiceConfig: { type: 'default', apiKey: '', fromEmail: '', fromCompany: '', triggers: { 'comment.add': false } } });
      // Off and on again: the triggers stay as they are.
      await other.client.workspace.updateEmailConfig({ useEmailService: false });
      expect((await other.client.workspace.updateEmailConfig({ emailServiceConfig: { type: 'custom' } })).data).toEqual({
        useEmailService: false,
        emailServiceConfig: { type: 'custom', apiKey: '', fromEmail: '', fromCompany: '', triggers: { 'comment.add': false } },
      });
    });
  });

  describe('merging', () => {
    it('keeps every field not sent and merges triggers key by key', async () => {
      const { client } = await fresh();
      await client.workspace.updateEmailConfig({ useEmailService: true, emailServiceConfig: { fromEmail: 'a@example.com', fromCompany: 'A' } });
      await client.workspace.updateEmailConfig({ emailServiceConfig: { triggers: { 'comment.add': false, 'comment.update': true } } });
      await client.workspace.updateEmailConfig({ emailServiceConfig: { fromCompany: 'A2' } });
      const { data } = await client.workspace.updateEmailConfig({ emailServiceConfig: { triggers: { 'comment.update': false, 'huddle.join': false } } });
      const expected = {
        useEmailService: true,
        emailServiceConfig: {
          type: 'custom',
          apiKey: '',
          fromEmail: 'a@example.com',
          fromCompany: 'A2',
          triggers: { ...EMAIL_DEFAULT_TRIGGERS, 'comment.add': false, 'comment.update': false, 'huddle.join': false },
        },
      };
      expect(data).toEqual(expected);
      expect(await read(client)).toEqual(expected);
      // Clearing a field is sending it empty.
      expect((await client.workspace.updateEmailConfig({ emailServiceConfig: { fromEmail: '', fromCompany: '' } })).data.emailServiceConfig).toMatchObject({ fromEmail: '', fromCompany: '' });
    });

    it('keeps both of concurrent partial updates', async () => {
      const { client } = await fresh();
      await client.workspace.updateEmailConfig({ useEmailService: true });
      await Promise.all([
        ...Array.from({ length: 8 }, (_, i) => client.workspace.updateEmailConfig({ emailServiceConfig: { triggers: { [`custom.t${i}`]: i % 2 === 0 } } })),
        client.workspace.updateEmailConfig({ emailServiceConfig: { fromCompany: 'Concurrent' } }),
        client.workspace.updateEmailConfig({ emailServiceConfig: { fromEmail: 'c@example.com' } }),
      ]);
      const { emailServiceConfig } = await read(client);
      expect(emailServiceConfig).toEqual({
        type: 'custom',
        apiKey: '',
        fromEmail: 'c@example.com',
        fromCompany: 'Concurrent',
        triggers: { ...EMAIL_DEFAULT_TRIGGERS, ...Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`custom.t${i}`, i % 2 === 0])) },
      });
    });
  });

  describe('the provider key', () => {
    it('is stored sealed, shown masked in the update and get results, kept when sent back masked, removed by ""', async () => {
      const { ws, client } = await fresh();
      const key = providerKey();
      const masked = `****${key.slice(-4)}`;
      const { data } = await client.workspace.updateEmailConfig({ useEmailService: true, emailServiceConfig: { type: 'thirdparty', apiKey: key, fromEmail: 'team@example.com' } });
      expect(data.emailServiceConfig.apiKey).toBe(masked);
      expect((await read(client)).emailServiceConfig.apiKey).toBe(masked);

      const row = await storedRow(ws);
      expect(row).not.toContain(key);
      expect(row).not.toContain(key.slice(3, 20));
      const sealed = (JSON.parse(row) as { apiKeySealed: string }).apiKeySealed;
      expect(sealed).not.toBe('');
      expect(JSON.parse(row)).not.toHaveProperty('apiKey');

      // A client sending the config it read back changes nothing.
      const again = await client.workspace.updateEmailConfig({ emailServiceConfig: { ...(await read(client)).emailServiceConfig, fromCompany: 'Same key' } });
      expect(again.data.emailServiceConfig.apiKey).toBe(masked);
      expect(JSON.parse(await storedRow(ws)).apiKeySealed).toBe(sealed);
      // Another masked-looking value is refused rather than stored as a key.
      await expectCollabError(client.workspace.updateEmailConfig({ emailServiceConfig: { apiKey: '****abcd' } }), 'INVALID_ARGUMENT', /apiKey.*masked/);

      // A new key replaces it; a short key shows no characters.
      const short = 'short-key-123';
      expect((await client.workspace.updateEmailConfig({ emailServiceConfig: { apiKey: short } })).data.emailServiceConfig.apiKey).toBe('****');
      expect(await storedRow(ws)).not.toContain(short);
      // Removing the key needs a type that does without it.
      await expectCollabError(client.workspace.updateEmailConfig({ emailServiceConfig: { apiKey: '' } }), 'INVALID_ARGUMENT', /apiKey/);
      const removed = await client.workspace.updateEmailConfig({ emailServiceConfig: { type: 'custom', apiKey: '' } });
      expect(removed.data.emailServiceConfig).toMatchObject({ type: 'custom', apiKey: '' });
      expect(JSON.parse(await storedRow(ws)).apiKeySealed).toBe('');
    });

    it('must be printable ASCII without spaces (it becomes an HTTP header)', async () => {
      const { client } = await fresh();
      await expectCollabError(client.workspace.updateEmailConfig({ emailServiceConfig: { apiKey: 'SG.key with space' } }), 'INVALID_ARGUMENT', /apiKey/);
      await expectCollabError(client.workspace.updateEmailConfig({ emailServiceConfig: { apiKey: 'SG.key\r\nX-Injected: 1' } }), 'INVALID_ARGUMENT', /apiKey/);
    });
  });

  describe('invalid configs (INVALID_ARGUMENT, nothing stored)', () => {
    it('needs useEmailService or emailServiceConfig', async () => {
      const { client } = await fresh();
      await expectCollabError(client.workspace.updateEmailConfig({}), 'INVALID_ARGUMENT', /useEmailService and\/or emailServiceConfig/);
      await expectCollabError(client.workspace.updateEmailConfig({ useEmailService: 'yes' as unknown as boolean }), 'INVALID_ARGUMENT', /useEmailService/);
      await expectCollabError(client.workspace.updateEmailConfig({ emailServiceConfig: { type: 'smtp' as never } }), 'INVALID_ARGUMENT', /type/);
      await expectCollabError(client.workspace.updateEmailConfig({ emailServiceConfig: { password: 'x' } as never }), 'INVALID_ARGUMENT', /password/);
      expect(await read(client)).toEqual(NEVER);
    });

    it('thirdparty needs an apiKey and a fromEmail, sent or stored', async () => {
      const { client } = await fresh();
      await expectCollabError(
        client.workspace.updateEmailConfig({ useEmailService: true, emailServiceConfig: { type: 'thirdparty', fromEmail: 'a@example.com' } }),
        'INVALID_ARGUMENT',
        /data\.emailServiceConfig\.apiKey/,
      );
      await expectCollabError(client.workspace.updateEmailConfig({ emailServiceConfig: { type: 'thirdparty', apiKey: providerKey() } }), 'INVALID_ARGUMENT', /data\.emailServiceConfig\.fromEmail/);
      expect(await read(client)).toEqual(NEVER);
      // Stored key and sender, type sent alone: accepted.
      await client.workspace.updateEmailConfig({ emailServiceConfig: { apiKey: providerKey(), fromEmail: 'a@example.com' } });
      expect((await client.workspace.updateEmailConfig({ emailServiceConfig: { type: 'thirdparty' } })).data.emailServiceConfig.type).toBe('thirdparty');
      // Clearing the sender of a thirdparty config is refused and changes nothing.
      await expectCollabError(client.workspace.updateEmailConfig({ emailServiceConfig: { fromEmail: '' } }), 'INVALID_ARGUMENT', /fromEmail/);
      expect((await read(client)).emailServiceConfig.fromEmail).toBe('a@example.com');
    });

    it('a non-empty fromEmail must be an email address; fromCompany one line', async () => {
      const { client } = await fresh();
      for (const fromEmail of ['not-an-email', 'a b@example.com', 'Name <a@example.com>', 'a@example.com\r\nBcc: x@example.com', 'a@localhost']) {
        await expectCollabError(client.workspace.updateEmailConfig({ emailServiceConfig: { fromEmail } }), 'INVALID_ARGUMENT', /data\.emailServiceConfig\.fromEmail/);
      }
      await expectCollabError(client.workspace.updateEmailConfig({ emailServiceConfig: { fromCompany: 'A\nBcc: x@example.com' } }), 'INVALID_ARGUMENT', /fromCompany/);
      expect(await read(client)).toEqual(NEVER);
    });

    it(`bounds the trigger map: 64 keys per request and in all`, async () => {
      const { client } = await fresh();
      const many = (n: number, prefix: string) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, true]));
      await expectCollabError(client.workspace.updateEmailConfig({ emailServiceConfig: { triggers: many(65, 't') } }), 'INVALID_ARGUMENT', /at most 64 triggers/);
      await client.workspace.updateEmailConfig({ emailServiceConfig: { triggers: many(60, 'a') } });
      await expectCollabError(client.workspace.updateEmailConfig({ emailServiceConfig: { triggers: many(5, 'b') } }), 'INVALID_ARGUMENT', /at most 64 triggers in all/);
      await expectCollabError(client.workspace.updateEmailConfig({ emailServiceConfig: { triggers: { 'comment.add': 'yes' } as never } }), 'INVALID_ARGUMENT', /triggers/);
      const proto = await server.post(PATH, '{"data":{"emailServiceConfig":{"triggers":{"__proto__":true}}}}', appHeaders((await fresh()).ws));
      expect([proto.status, proto.body.error?.status]).toEqual([400, 'INVALID_ARGUMENT']);
    });
  });

  describe('credentials and tenancy', () => {
    it('checks credentials', async () => {
      const { ws } = await fresh();
      await expectCredentialChecks(server, ws, PATH, { useEmailService: true });
    });

    it("changes only the caller's application: another workspace's config is neither changed nor shown", async () => {
      const a = await fresh();
      const b = await fresh();
      const keyA = providerKey();
      const configA = (
        await a.client.workspace.updateEmailConfig({ useEmailService: true, emailServiceConfig: { type: 'thirdparty', apiKey: keyA, fromEmail: 'a@example.com', fromCompany: 'Tenant A' } })
      ).data;
      const res = await server.post(PATH, { data: { useEmailService: false, emailServiceConfig: { fromCompany: 'Tenant B' } } }, appHeaders(b.ws));
      expect(res.status).toBe(200);
      expect(res.body.result.data).toEqual({ useEmailService: false, emailServiceConfig: { type: 'default', apiKey: '', fromEmail: '', fromCompany: 'Tenant B', triggers: {} } });
      expect(JSON.stringify(res.body)).not.toContain('Tenant A');
      expect(await read(a.client)).toEqual(configA);
      expect(JSON.stringify(await read(b.client))).not.toContain('a@example.com');
    });
  });
});
