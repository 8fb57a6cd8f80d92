import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCollabError, expectCredentialChecks } from '../../helpers/credentials.js';
import { startTestServer, type TestServer, type WorkspaceCredentials, putRawSetting } from '../../helpers/server.js';

let server: TestServer;
let a: WorkspaceCredentials;
let b: WorkspaceCredentials;

beforeAll(async () => {
  server = await startTestServer();
  [a, b] = await Promise.all([server.workspace(), server.workspace()]);
  // Until the update operations exist, configure workspace A through the repo.
  const appA = (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', a.apiKey)).apiKey.id;
  await putRawSetting(server, appA, 'email', {
    useEmailService: true,
    type: 'custom',
    apiKeySealed: '',
    fromEmail: 'noreply@example.com',
    fromCompany: 'Example',
    triggers: { 'comment.add': true },
  });
});
afterAll(() => server?.close());

describe('Get Email Config', () => {
  const path = '/v2/workspace/emailconfig/get';
  it('returns the stored config', async () => {
    expect((await server.client(a).workspace.getEmailConfig()).data).toEqual({
      useEmailService: true,
      emailServiceConfig: { type: 'custom', apiKey: '', fromEmail: 'noreply@example.com', fromCompany: 'Example', triggers: { 'comment.add': true } },
    });
  });
  it('reads the defaults when unset, and never shows another workspace\'s config', async () => {
    expect((await server.client(b).workspace.getEmailConfig()).data).toEqual({
      useEmailService: false,
      emailServiceConfig: { type: 'default', apiKey: '', fromEmail: '', fromCompany: '', triggers: {} },
    });
  });
  it('rejects unknown fields', async () => {
    await expectCollabError(server.client(a).workspace.getEmailConfig({ x: 1 } as never), 'INVALID_ARGUMENT');
  });
  it('checks credentials', () => expectCredentialChecks(server, a, path, {}));
});
