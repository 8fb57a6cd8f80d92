// Feature-level access context (`context.accessFields`): granted with document
// entries of Add Permissions and Generate Token, returned by Get Permissions
// and carried in the user token.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';

let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
// A clock the test moves, so temporary grants can lapse.
let fakeMs = Date.now();
const ORG = 'ctx-org';

beforeAll(async () => {
  server = await startTestServer({}, { overrides: { clock: { now: () => new Date(fakeMs), nowMs: () => fakeMs } } });
  ws = await server.workspace();
  client = server.client(ws);
  for (const documentId of ['d1', 'd2', 'd3']) await client.organizations.addDocument({ organizationId: ORG, documentId, accessType: 'restricted' });
  await client.organizations.addFolder({ organizationId: ORG, folderId: 'box' });
});
afterAll(() => server?.close());

const grant = (userId: string, documentId: string, accessFields?: string[], extra: Record<string, unknown> = {}) =>
  client.permissions.addPermissions({
    user: { userId },
    permissions: { resources: [{ type: 'document', id: documentId, organizationId: ORG, ...extra, ...(accessFields ? { context: { accessFields } } : {}) }] },
  });

async function contextOf(userId: string, documentIds: string[], c: Client = client) {
  const { data } = await c.permissions.getPermissions({ organizationId: ORG, userIds: [userId], documentIds });
  return data[userId]!.context;
}

describe('Add Permissions with context, Get Permissions returning it', () => {
  it('returns the union of the fields of the documents asked about, sorted and without repeats; absent when none', async () => {
    await grant('ann', 'd1', ['tier:gold', 'team:design', 'team:design']);
    await grant('ann', 'd2', ['team:eng', 'tier:gold', 'url:https://example.com/a']);
    await grant('ann', 'd3');

    expect(await contextOf('ann', ['d1', 'd2', 'd3'])).toEqual({ accessFields: ['team:design', 'team:eng', 'tier:gold', 'url:https://example.com/a'] });
    expect(await contextOf('ann', ['d1'])).toEqual({ accessFields: ['team:design', 'tier:gold'] });
    expect(await contextOf('ann', ['d3'])).toBeUndefined();
    expect(await contextOf('ann', [])).toBeUndefined();

    const { data } = await client.permissions.getPermissions({ organizationId: ORG, userIds: ['ann', 'nobody'], documentIds: ['d1'] });
    expect(data.ann).toEqual({
      organization: { [ORG]: expect.objectContaining({ errorCode: 'permission_denied' }) },
      folders: {},
      documents: { d1: { accessRole: 'editor', accessType: 'restricted' } },
      context: { accessFields: ['team:design', 'tier:gold'] },
    });
    expect(data.nobody!.context).toBeUndefined();
  });

  it("includes the fields of the user's groups' grants on the documents", async () => {
    await client.users.addUsers({ organizationId: ORG, users: [{ userId: 'gus' }] });
    await client.users.addUserGroup({ organizationId: ORG, organizationUserGroupId: 'reviewers', name: 'Reviewers' });
    await client.users.addUsersToGroup({ organizationId: ORG, organizationUserGroupId: 'reviewers', userIds: ['gus'] });
    await client.permissions.addPermissions({
      userGroup: { organizationId: ORG, organizationUserGroupId: 'reviewers' },
      permissions: { resources: [{ type: 'document', id: 'd2', organizationId: ORG, accessRole: 'viewer', context: { accessFields: ['role:reviewer'] } }] },
    });
    await grant('gus', 'd2', ['team:qa']);
    expect(await contextOf('gus', ['d2'])).toEqual({ accessFields: ['role:reviewer', 'team:qa'] });
  });

  it('in the NOT_FOUND details too, from the documents that exist', async () => {
    const error = await expectCollabError(client.permissions.getPermissions({ organizationId: ORG, userIds: ['ann'], documentIds: ['d1', 'missing'] }), 'NOT_FOUND');
    expect((error.details as any).ann.context).toEqual({ accessFields: ['team:design', 'tier:gold'] });
  });

  it('granting again replaces the fields, and a grant without context clears them', async () => {
    await grant('rex', 'd1', ['a:1', 'b:2']);
    expect(await contextOf('rex', ['d1'])).toEqual({ accessFields: ['a:1', 'b:2'] });
    await grant('rex', 'd1', ['c:3'], { accessRole: 'viewer' });
    expect(await contextOf('rex', ['d1'])).toEqual({ accessFields: ['c:3'] });
    await grant('rex', 'd1', []);
    expect(await contextOf('rex', ['d1'])).toBeUndefined();
    await grant('rex', 'd1', ['d:4']);
    await grant('rex', 'd1');
    expect(await contextOf('rex', ['d1'])).toBeUndefined();
  });

  it('Add Users to a document leaves the fields of an existing grant as they are', async () => {
    await grant('uma', 'd1', ['team:ops']);
    await client.users.addUsers({ organizationId: ORG, documentId: 'd1', users: [{ userId: 'uma', accessRole: 'viewer' }] });
    expect(await contextOf('uma', ['d1'])).toEqual({ accessFields: ['team:ops'] });
  });

  it('Remove Permissions accepts the same entries (context ignored) and the fields go with the grant', async () => {
    await grant('ria', 'd1', ['team:ops']);
    await client.permissions.removePermissions({
      user: { userId: 'ria' },
      permissions: { resources: [{ type: 'document', id: 'd1', organizationId: ORG, context: { accessFields: ['other:x'] } }] },
    });
    const { data } = await client.permissions.getPermissions({ organizationId: ORG, userIds: ['ria'], documentIds: ['d1'] });
    expect(data.ria!.documents!.d1!.errorCode).toBe('permission_denied');
    expect(data.ria!.context).toBeUndefined();
  });

  it("does not return an expired grant's fields", async () => {
    await grant('tim', 'd1', ['temp:yes'], { expiresAt: Math.floor(fakeMs / 1000) + 60 });
    await grant('tim', 'd2', ['keep:yes']);
    expect(await contextOf('tim', ['d1', 'd2'])).toEqual({ accessFields: ['keep:yes', 'temp:yes'] });
    fakeMs += 120_000;
    expect(await contextOf('tim', ['d1', 'd2'])).toEqual({ accessFields: ['keep:yes'] });
    expect(await contextOf('tim', ['d1'])).toBeUndefined();
  });

  it('another workspace never sees them, even with the same IDs', async () => {
    await grant('vic', 'd1', ['secret:a']);
    const other = server.client(await server.workspace());
    await other.organizations.addDocument({ organizationId: ORG, documentId: 'd1', accessType: 'restricted' });
    await other.permissions.addPermissions({ user: { userId: 'vic' }, permissions: { resources: [{ type: 'document', id: 'd1', organizationId: ORG }] } });
    const { data } = await other.permissions.getPermissions({ organizationId: ORG, userIds: ['vic'], documentIds: ['d1'] });
    expect(data.vic!.documents!.d1!.accessRole).toBe('editor');
    expect(data.vic!.context).toBeUndefined();
    expect(JSON.stringify(data)).not.toContain('secret:a');
  });
});

describe('validation of context', () => {
  const entry = (context: unknown, type: 'document' | 'folder' | 'organization' = 'document') => ({
    user: { userId: 'val' },
    permissions: { resources: [{ type, id: type === 'organization' ? ORG : type === 'folder' ? 'box' : 'd1', ...(type !== 'organization' ? { organizationId: ORG } : {}), context }] },
  });
  const add = (context: unknown, type?: 'document' | 'folder' | 'organization') => client.permissions.addPermissions(entry(context, type) as never);

  it.each([
    ['no colon', 'team'],
    ['an empty name', ':design'],
    ['an empty value', 'team:'],
    ['an empty string', ''],
    ['a colon only', ':'],
  ])('refuses an entry with %s', async (_, field) => {
    await expectCollabError(add({ accessFields: ['ok:1', field] }), 'INVALID_ARGUMENT', /data\.permissions\.resources\[0\]\.context\.accessFields\[1\]: must be <fieldName>:<value>/);
  });

  it('refuses entries that are not strings, too long, too many, and unknown keys in context', async () => {
    await expectCollabError(add({ accessFields: [7] }), 'INVALID_ARGUMENT', /context\.accessFields\[0\]/);
    await expectCollabError(add({ accessFields: [`a:${'x'.repeat(255)}`] }), 'INVALID_ARGUMENT', /context\.accessFields\[0\]/);
    await expectCollabError(add({ accessFields: Array.from({ length: 51 }, (_, i) => `f:${i}`) }), 'INVALID_ARGUMENT', /context\.accessFields/);
    await expectCollabError(add({ accessFields: ['a:1'], extra: true }), 'INVALID_ARGUMENT', /context/);
    await expectCollabError(add({}), 'INVALID_ARGUMENT', /context\.accessFields is required/);
    await expectCollabError(add('team:design'), 'INVALID_ARGUMENT', /context/);
  });

  it('accepts the bounds: 50 entries of 256 characters', async () => {
    const fields = Array.from({ length: 50 }, (_, i) => `f${String(i).padStart(2, '0')}:${'v'.repeat(252)}`);
    expect(fields.every((f) => f.length === 256)).toBe(true);
    await add({ accessFields: fields });
    expect(await contextOf('val', ['d1'])).toEqual({ accessFields: fields });
  });

  it('refuses context on folder and organization entries, and writes nothing', async () => {
    await expectCollabError(add({ accessFields: ['a:1'] }, 'folder'), 'INVALID_ARGUMENT', /data\.permissions\.resources\[0\]\.context: is only allowed on document entries, not on type folder/);
    await expectCollabError(add({ accessFields: ['a:1'] }, 'organization'), 'INVALID_ARGUMENT', /context: is only allowed on document entries, not on type organization/);
    const { data } = await client.permissions.getPermissions({ organizationId: ORG, userIds: ['val'], folderIds: ['box'] });
    expect(data.val!.folders!.box!.errorCode).toBe('permission_denied');
  });
});

describe('Generate Token with context', () => {
  const audience = () => createHash('sha256').update(ws.apiKey).digest('hex');

  it('grants the fields like Add Permissions and carries them on the document entries of the token', async () => {
    const { data } = await client.permissions.generateToken({
      userId: 'tok',
      userProperties: { name: 'Tok', email: 'tok@example.com' },
      permissions: {
        resources: [
          { type: 'organization', id: ORG, accessRole: 'viewer' },
          { type: 'document', id: 'd1', organizationId: ORG, context: { accessFields: ['tier:gold', 'team:design', 'tier:gold'] } },
          { type: 'document', id: 'd2', organizationId: ORG, accessRole: 'viewer' },
        ],
      },
    });
    const claims = await server.running.verifyUserToken(data.token, { audience: audience() });
    expect(claims.permissions.resources).toEqual([
      { type: 'organization', id: ORG, accessRole: 'viewer' },
      { type: 'document', id: 'd1', organizationId: ORG, accessRole: 'editor', context: { accessFields: ['team:design', 'tier:gold'] } },
      { type: 'document', id: 'd2', organizationId: ORG, accessRole: 'viewer' },
    ]);
    expect(await contextOf('tok', ['d1', 'd2'])).toEqual({ accessFields: ['team:design', 'tier:gold'] });
  });

  it('refuses context on a folder entry and invalid entries', async () => {
    const user = { userId: 'tok2', userProperties: { name: 'Tok', email: 'tok@example.com' } };
    await expectCollabError(
      client.permissions.generateToken({ ...user, permissions: { resources: [{ type: 'folder', id: 'box', organizationId: ORG, context: { accessFields: ['a:1'] } }] } }),
      'INVALID_ARGUMENT',
      /data\.permissions\.resources\[0\]\.context: is only allowed on document entries/,
    );
    await expectCollabError(
      client.permissions.generateToken({ ...user, permissions: { resources: [{ type: 'document', id: 'd1', organizationId: ORG, context: { accessFields: ['nocolon'] } }] } }),
      'INVALID_ARGUMENT',
      /context\.accessFields\[0\]: must be <fieldName>:<value>/,
    );
  });
});
