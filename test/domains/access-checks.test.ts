// Access checks (server/domains/access/checks.ts) against the real database
// (SQLite, or PostgreSQL with TEST_DATABASE_URL): data is created through the
// SDK like a client app would, then the checks are asked directly and must
// agree with Get Permissions for the same data.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../sdk/index.js';
import { contextVisible, createAccessChecks, type AccessChecks, type DocumentAccess } from '../../server/domains/access/checks.js';
import { createAccessRepos, type AccessRepos } from '../../server/domains/access/repos/index.js';
import { applicationAudience } from '../../server/domains/permissions/signing-keys.js';
import { startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

let server: TestServer;
let client: Client;
let credentials: WorkspaceCredentials;
let apiKeyId: string;
let repos: AccessRepos;
let checks: AccessChecks;
// The server and the checks read the same clock, so a test can let temporary grants lapse.
let fakeMs = Date.now();
const now = () => new Date(fakeMs);
const ORG = 'acme';

async function applicationId(c: WorkspaceCredentials): Promise<string> {
  const row = await server.running.database.db.apiKey.findUnique({ where: { keyDigest: applicationAudience(c.apiKey) }, select: { id: true } });
  return row!.id;
}

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_PER_MINUTE: '100000000' }, { overrides: { clock: { now, nowMs: () => fakeMs } } });
  credentials = await server.workspace();
  client = server.client(credentials);
  apiKeyId = await applicationId(credentials);
  repos = createAccessRepos(server.running.database.db, { now, nowMs: () => fakeMs });
  checks = createAccessChecks({ ...repos, now });

  const o = client.organizations;
  // acme: folders eng (org-private) ⊃ eng-sub (inherits) and eng-own (does not inherit, restricted);
  // documents: top (org-private), secret (restricted), pub (public), spec in eng, deep in eng-sub, vault in eng-own.
  await o.addFolder({ organizationId: ORG, folderId: 'eng' });
  await o.addFolder({ organizationId: ORG, folderId: 'eng-sub', parentFolderId: 'eng' });
  await o.addFolder({ organizationId: ORG, folderId: 'eng-own', parentFolderId: 'eng', inheritAccessFromParent: false, accessType: 'restricted' });
  await o.addDocument({ organizationId: ORG, documentId: 'top' });
  await o.addDocument({ organizationId: ORG, documentId: 'secret', accessType: 'restricted' });
  await o.addDocument({ organizationId: ORG, documentId: 'pub', accessType: 'public' });
  await o.addDocument({ organizationId: ORG, documentId: 'spec', folderId: 'eng' });
  await o.addDocument({ organizationId: ORG, documentId: 'deep', folderId: 'eng-sub' });
  await o.addDocument({ organizationId: ORG, documentId: 'vault', folderId: 'eng-own' });

  await client.users.addUsers({ organizationId: ORG, users: [{ userId: 'olga', name: 'Olga', accessRole: 'viewer' }] });
  await client.users.addUsers({ organizationId: ORG, folderId: 'eng', users: [{ userId: 'fred', name: 'Fred' }] });
  await client.users.addUsers({ organizationId: ORG, documentId: 'secret', users: [{ userId: 'dora', name: 'Dora' }] });
  await client.users.addUsers({ organizationId: ORG, documentId: 'pub', users: [{ userId: 'pia', name: 'Pia', accessRole: 'viewer' }] });
  await client.users.addUsers({ organizationId: ORG, users: [{ userId: 'gina', name: 'Gina' }] });
  await client.users.addUserGroup({ organizationId: ORG, organizationUserGroupId: 'vaulters', name: 'Vault' });
  await client.users.addUsersToGroup({ organizationId: ORG, organizationUserGroupId: 'vaulters', userIds: ['gina'] });
  await client.permissions.addPermissions({
    userGroup: { organizationId: ORG, organizationUserGroupId: 'vaulters' },
    permissions: { resources: [{ type: 'folder', id: 'eng-own', organizationId: ORG, accessRole: 'viewer' }] },
  });
});
afterAll(() => server?.close());

const roleOf = (access: DocumentAccess | null) => access?.accessRole ?? null;
const readerRoles = (readers: DocumentAccess[] | Map<string, DocumentAccess>) =>
  Object.fromEntries([...(readers instanceof Map ? readers.values() : readers)].map((r) => [r.userId, r.accessRole]));

describe('onDocument', () => {
  it('gives the role of organization, folder, document and group members, and null when they cannot read', async () => {
    const ask = (userId: string, documentId: string) => checks.onDocument(apiKeyId, ORG, documentId, userId).then(roleOf);
    expect(await ask('olga', 'top')).toBe('viewer');
    expect(await ask('olga', 'secret')).toBeNull();
    expect(await ask('olga', 'deep')).toBe('viewer');
    expect(await ask('olga', 'vault')).toBeNull();
    expect(await ask('fred', 'spec')).toBe('editor');
    expect(await ask('fred', 'deep')).toBe('editor');
    expect(await ask('fred', 'vault')).toBeNull();
    expect(await ask('fred', 'top')).toBeNull();
    expect(await ask('dora', 'secret')).toBe('editor');
    expect(await ask('dora', 'top')).toBeNull();
    expect(await ask('gina', 'vault')).toBe('viewer');
    expect(await ask('gina', 'top')).toBe('editor');
  });

  it('a public document is viewable by anyone asked about, even a user the application has never seen', async () => {
    expect(await checks.onDocument(apiKeyId, ORG, 'pub', 'stranger')).toEqual({ userId: 'stranger', accessRole: 'viewer', accessFields: [], organizationMember: false });
    expect(await checks.onDocument(apiKeyId, ORG, 'top', 'stranger')).toBeNull();
  });

  it('is null for a document or organization that does not exist', async () => {
    expect(await checks.onDocument(apiKeyId, ORG, 'no-such-doc', 'olga')).toBeNull();
    expect(await checks.onDocument(apiKeyId, 'no-such-org', 'top', 'olga')).toBeNull();
  });

  it('caps a disabled document and a disabled organization at viewer', async () => {
    await client.organizations.updateDocumentDisableState({ organizationId: ORG, documentId: 'spec', disabled: true });
    try {
      expect(roleOf(await checks.onDocument(apiKeyId, ORG, 'spec', 'fred'))).toBe('viewer');
    } finally {
      await client.organizations.updateDocumentDisableState({ organizationId: ORG, documentId: 'spec', disabled: false });
    }
    expect(roleOf(await checks.onDocument(apiKeyId, ORG, 'spec', 'fred'))).toBe('editor');

    await client.organizations.updateOrganizationDisableState({ organizationId: ORG, disabled: true });
    try {
      expect(roleOf(await checks.onDocument(apiKeyId, ORG, 'top', 'gina'))).toBe('viewer');
      expect(readerRoles(await checks.readersOf(apiKeyId, ORG, 'deep'))).toEqual({ fred: 'viewer', gina: 'viewer', olga: 'viewer' });
    } finally {
      await client.organizations.updateOrganizationDisableState({ organizationId: ORG, disabled: false });
    }
  });

  it("sees nothing of another application's data with the same IDs", async () => {
    const other = await server.workspace();
    const otherId = await applicationId(other);
    expect(await checks.onDocument(otherId, ORG, 'top', 'olga')).toBeNull();
    expect(await checks.readersAmong(otherId, ORG, 'secret', ['dora'])).toEqual(new Map());
    expect(await checks.readersOf(otherId, ORG, 'top')).toEqual([]);

    // The other application's own grants do not leak into this one either.
    await server.client(other).users.addUsers({ organizationId: ORG, documentId: 'secret', createDocument: true, users: [{ userId: 'mallory' }] });
    expect(roleOf(await checks.onDocument(otherId, ORG, 'secret', 'mallory'))).toBe('editor');
    expect(await checks.onDocument(apiKeyId, ORG, 'secret', 'mallory')).toBeNull();
    expect(readerRoles(await checks.readersOf(apiKeyId, ORG, 'secret'))).toEqual({ dora: 'editor' });
  });
});

describe('readersAmong', () => {
  it('maps exactly the users who can read, with their roles; unknown and denied users are missing', async () => {
    const readers = await checks.readersAmong(apiKeyId, ORG, 'deep', ['olga', 'fred', 'dora', 'gina', 'stranger', 'olga']);
    expect(readerRoles(readers)).toEqual({ olga: 'viewer', fred: 'editor', gina: 'editor' });
    expect(readers.get('fred')).toEqual({ userId: 'fred', accessRole: 'editor', accessFields: [], organizationMember: false });
    // Membership of the organization is a grant on it (olga's), not a role reached through a folder (fred's).
    expect(readers.get('olga')?.organizationMember).toBe(true);
    expect(await checks.readersAmong(apiKeyId, ORG, 'deep', [])).toEqual(new Map());
    expect(await checks.readersAmong(apiKeyId, ORG, 'no-such-doc', ['olga'])).toEqual(new Map());
  });

  it('reads with a fixed number of queries whatever the number of users (batches, not one per user)', async () => {
    const calls: string[] = [];
    const counting = <T extends object>(repo: T): T =>
      new Proxy(repo, {
        get(target, property, receiver) {
          const value = Reflect.get(target, property, receiver) as unknown;
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            calls.push(String(property));
            return (value as (...a: unknown[]) => unknown)(...args);
          };
        },
      });
    const counted = createAccessChecks({
      organizations: counting(repos.organizations),
      folders: counting(repos.folders),
      documents: counting(repos.documents),
      grants: counting(repos.grants),
      groups: counting(repos.groups),
      now,
    });
    await counted.readersAmong(apiKeyId, ORG, 'deep', ['olga']);
    const forOne = calls.length;
    calls.length = 0;
    const many = [...Array.from({ length: 300 }, (_, i) => `nobody-${i}`), 'olga', 'fred', 'gina'];
    const readers = await counted.readersAmong(apiKeyId, ORG, 'deep', many);
    expect(calls.length).toBe(forOne);
    expect([...readers.keys()].sort()).toEqual(['fred', 'gina', 'olga']);
  });

  it('answers for more users than one batch holds', async () => {
    const many = [...Array.from({ length: 1200 }, (_, i) => `nobody-${i}`), 'gina', 'olga'];
    expect(readerRoles(await checks.readersAmong(apiKeyId, ORG, 'top', many))).toEqual({ gina: 'editor', olga: 'viewer' });
  });
});

describe('readersOf', () => {
  it('lists members through organization, folder, document and group grants, sorted by user ID', async () => {
    expect(await checks.readersOf(apiKeyId, ORG, 'deep')).toEqual([
      { userId: 'fred', accessRole: 'editor', accessFields: [], organizationMember: false },
      { userId: 'gina', accessRole: 'editor', accessFields: [], organizationMember: true },
      { userId: 'olga', accessRole: 'viewer', accessFields: [], organizationMember: true },
    ]);
    expect(readerRoles(await checks.readersOf(apiKeyId, ORG, 'secret'))).toEqual({ dora: 'editor' });
    expect(readerRoles(await checks.readersOf(apiKeyId, ORG, 'vault'))).toEqual({ gina: 'viewer' });
    expect(readerRoles(await checks.readersOf(apiKeyId, ORG, 'top'))).toEqual({ gina: 'editor', olga: 'viewer' });
  });

  it('for a public document lists the organization members and those granted on it, not everyone who could open it', async () => {
    // fred (a folder member elsewhere) and dora (a member of another document) could view pub, but are not its readers list.
    expect(readerRoles(await checks.readersOf(apiKeyId, ORG, 'pub'))).toEqual({ gina: 'editor', olga: 'viewer', pia: 'viewer' });
  });

  it('is empty for a document or organization that does not exist', async () => {
    expect(await checks.readersOf(apiKeyId, ORG, 'no-such-doc')).toEqual([]);
    expect(await checks.readersOf(apiKeyId, 'no-such-org', 'top')).toEqual([]);
  });
});

describe('temporary grants', () => {
  it('a lapsed grant no longer counts, with no job running', async () => {
    const organizationId = 'temp';
    await client.organizations.addDocument({ organizationId, documentId: 'memo', accessType: 'restricted' });
    const expiresAt = Math.floor(fakeMs / 1000) + 60;
    await client.permissions.addPermissions({
      user: { userId: 'tina' },
      permissions: { resources: [{ type: 'document', id: 'memo', organizationId, accessRole: 'editor', expiresAt }] },
    });
    await client.users.addUserGroup({ organizationId, organizationUserGroupId: 'temps', name: 'Temps' });
    await client.users.addUsersToGroup({ organizationId, organizationUserGroupId: 'temps', userIds: ['olga'] });
    await client.permissions.addPermissions({
      userGroup: { organizationId, organizationUserGroupId: 'temps' },
      permissions: { resources: [{ type: 'document', id: 'memo', organizationId, accessRole: 'viewer', expiresAt }] },
    });
    expect(roleOf(await checks.onDocument(apiKeyId, organizationId, 'memo', 'tina'))).toBe('editor');
    expect(readerRoles(await checks.readersOf(apiKeyId, organizationId, 'memo'))).toEqual({ olga: 'viewer', tina: 'editor' });

    fakeMs += 120_000;
    expect(await checks.onDocument(apiKeyId, organizationId, 'memo', 'tina')).toBeNull();
    expect(await checks.readersAmong(apiKeyId, organizationId, 'memo', ['tina', 'olga'])).toEqual(new Map());
    expect(await checks.readersOf(apiKeyId, organizationId, 'memo')).toEqual([]);
    const { data } = await client.permissions.getPermissions({ organizationId, userIds: ['tina', 'olga'], documentIds: ['memo'] });
    expect(data.tina!.documents!.memo!.errorCode).toBe('permission_denied');
    expect(data.olga!.documents!.memo!.errorCode).toBe('permission_denied');
  });
});

describe('accessFields', () => {
  it("come from the user's own and their groups' live grants on that document, sorted, without repeats", async () => {
    const organizationId = 'fields';
    await client.organizations.addDocument({ organizationId, documentId: 'doc' });
    await client.organizations.addDocument({ organizationId, documentId: 'other' });
    await client.users.addUsers({ organizationId, users: [{ userId: 'mia', accessRole: 'viewer' }, { userId: 'max' }] });
    await client.users.addUserGroup({ organizationId, organizationUserGroupId: 'designers', name: 'Designers' });
    await client.users.addUsersToGroup({ organizationId, organizationUserGroupId: 'designers', userIds: ['mia'] });
    const on = (documentId: string, accessFields: string[], extra: Record<string, unknown> = {}) => ({
      permissions: { resources: [{ type: 'document' as const, id: documentId, organizationId, context: { accessFields }, ...extra }] },
    });
    await client.permissions.addPermissions({ user: { userId: 'mia' }, ...on('doc', ['tier:gold', 'team:design']) });
    await client.permissions.addPermissions({ userGroup: { organizationId, organizationUserGroupId: 'designers' }, ...on('doc', ['team:design', 'role:reviewer'], { accessRole: 'viewer' }) });
    await client.permissions.addPermissions({ user: { userId: 'mia' }, ...on('other', ['elsewhere:yes']) });
    await client.permissions.addPermissions({ user: { userId: 'max' }, ...on('doc', ['temp:yes'], { expiresAt: Math.floor(fakeMs / 1000) + 60 }) });

    const mia = { userId: 'mia', accessRole: 'editor', accessFields: ['role:reviewer', 'team:design', 'tier:gold'], organizationMember: true };
    expect(await checks.onDocument(apiKeyId, organizationId, 'doc', 'mia')).toEqual(mia);
    expect(await checks.onDocument(apiKeyId, organizationId, 'doc', 'max')).toEqual({ userId: 'max', accessRole: 'editor', accessFields: ['temp:yes'], organizationMember: true });
    expect((await checks.readersAmong(apiKeyId, organizationId, 'doc', ['mia'])).get('mia')).toEqual(mia);
    expect((await checks.readersOf(apiKeyId, organizationId, 'doc')).find((r) => r.userId === 'mia')).toEqual(mia);

    // The same fields Get Permissions returns for that document.
    const { data } = await client.permissions.getPermissions({ organizationId, userIds: ['mia'], documentIds: ['doc'] });
    expect(data.mia!.context).toEqual({ accessFields: mia.accessFields });

    fakeMs += 120_000;
    expect(await checks.onDocument(apiKeyId, organizationId, 'doc', 'max')).toEqual({ userId: 'max', accessRole: 'editor', accessFields: [], organizationMember: true });
  });
});

describe('IDs that are names of Object.prototype members', () => {
  it('keys users and groups by exactly their ID, __proto__ included', async () => {
    // The API refuses __proto__ as an ID, but the checks key by Map and must not care: write the rows directly.
    const { db } = server.running.database;
    const organizationId = 'proto-org';
    await client.organizations.addDocument({ organizationId, documentId: 'doc', accessType: 'restricted' });
    const grant = (principalType: string, principalId: string, accessRole: string) => ({
      apiKeyId,
      organizationId,
      resourceType: 'document',
      resourceId: 'doc',
      principalType,
      principalId,
      accessRole,
      createdAt: BigInt(fakeMs),
      updatedAt: BigInt(fakeMs),
    });
    await db.grant.createMany({ data: [grant('user', '__proto__', 'editor'), grant('user', 'constructor', 'viewer'), grant('group', '__proto__', 'viewer')] });
    await db.userGroup.create({ data: { apiKeyId, organizationId, id: '__proto__', name: 'proto', createdAt: BigInt(fakeMs) } });
    await db.userGroupMember.create({ data: { apiKeyId, organizationId, groupId: '__proto__', userId: 'toString', createdAt: BigInt(fakeMs) } });

    expect(await checks.readersOf(apiKeyId, organizationId, 'doc')).toEqual([
      { userId: '__proto__', accessRole: 'editor', accessFields: [], organizationMember: false },
      { userId: 'constructor', accessRole: 'viewer', accessFields: [], organizationMember: false },
      { userId: 'toString', accessRole: 'viewer', accessFields: [], organizationMember: false },
    ]);
    const among = await checks.readersAmong(apiKeyId, organizationId, 'doc', ['__proto__', 'toString', 'hasOwnProperty', 'valueOf']);
    expect([...among.keys()].sort()).toEqual(['__proto__', 'toString']);
    expect(among.get('__proto__')?.accessRole).toBe('editor');
    expect(roleOf(await checks.onDocument(apiKeyId, organizationId, 'doc', '__proto__'))).toBe('editor');
    expect(await checks.onDocument(apiKeyId, organizationId, 'doc', 'hasOwnProperty')).toBeNull();
  });
});

// ── the same answers as Get Permissions, on random data ────────────────────

type Role = 'viewer' | 'editor';
type AccessType = 'public' | 'restricted' | 'organizationPrivate';

interface Graph {
  folders: { parentPick: number | null; accessType?: AccessType; inherit?: boolean }[];
  documents: { folderPick: number | null; accessType?: AccessType; disabled: boolean }[];
  userCount: number;
  groups: number[][];
  grants: { principal: number; resource: 'organization' | { folder: number } | { document: number }; role?: Role }[];
  organizationDisabled: boolean;
}

const accessTypeArb = fc.option(fc.constantFrom<AccessType>('public', 'restricted', 'organizationPrivate'), { nil: undefined });
const graphArb: fc.Arbitrary<Graph> = fc.record({
  folders: fc.array(
    fc.record({
      parentPick: fc.option(fc.nat({ max: 3 }), { nil: null }),
      accessType: accessTypeArb,
      inherit: fc.option(fc.boolean(), { nil: undefined }),
    }),
    { maxLength: 4 },
  ),
  documents: fc.array(fc.record({ folderPick: fc.option(fc.nat({ max: 3 }), { nil: null }), accessType: accessTypeArb, disabled: fc.boolean() }), {
    minLength: 1,
    maxLength: 4,
  }),
  userCount: fc.integer({ min: 1, max: 4 }),
  groups: fc.array(fc.uniqueArray(fc.nat({ max: 3 }), { maxLength: 3 }), { maxLength: 2 }),
  grants: fc.array(
    fc.record({
      principal: fc.nat({ max: 5 }),
      resource: fc.oneof(
        fc.constant('organization' as const),
        fc.record({ folder: fc.nat({ max: 3 }) }),
        fc.record({ document: fc.nat({ max: 3 }) }),
      ),
      role: fc.option(fc.constantFrom<Role>('viewer', 'editor'), { nil: undefined }),
    }),
    { maxLength: 7 },
  ),
  organizationDisabled: fc.boolean(),
});

let run = 0;

/** Builds the graph in a new organization through the SDK; returns its IDs and who holds a grant on what. */
async function build(graph: Graph) {
  const n = ++run;
  const organizationId = `prop-${n}`;
  const folderIds = graph.folders.map((_, i) => `f${i}`);
  const documentIds = graph.documents.map((_, i) => `d${i}`);
  const userIds = Array.from({ length: graph.userCount }, (_, i) => `u${i}`);
  const groupIds = graph.groups.map((_, i) => `g${i}`);
  const parentOf = new Map<string, string | null>();
  const folderOf = new Map<string, string | null>();

  await client.organizations.addOrganization({ organizationId });
  for (const [i, f] of graph.folders.entries()) {
    // A parent is an earlier folder, so the tree has no cycle.
    const parent = f.parentPick === null || i === 0 ? null : folderIds[f.parentPick % i]!;
    parentOf.set(folderIds[i]!, parent);
    await client.organizations.addFolder({
      organizationId,
      folderId: folderIds[i]!,
      ...(parent !== null ? { parentFolderId: parent } : {}),
      ...(f.accessType ? { accessType: f.accessType } : {}),
      ...(f.inherit !== undefined ? { inheritAccessFromParent: f.inherit } : {}),
    });
  }
  for (const [i, d] of graph.documents.entries()) {
    const folder = d.folderPick === null || folderIds.length === 0 ? null : folderIds[d.folderPick % folderIds.length]!;
    folderOf.set(documentIds[i]!, folder);
    await client.organizations.addDocument({
      organizationId,
      documentId: documentIds[i]!,
      ...(folder !== null ? { folderId: folder } : {}),
      ...(d.accessType ? { accessType: d.accessType } : {}),
    });
  }
  for (const userId of userIds) {
    await client.permissions.generateToken({ userId, userProperties: { name: userId, email: `${userId}@example.com` }, permissions: { resources: [] } });
  }
  const membersOf = new Map<string, string[]>();
  for (const [i, members] of graph.groups.entries()) {
    const memberIds = [...new Set(members.map((m) => userIds[m % userIds.length]!))];
    await client.users.addUserGroup({ organizationId, organizationUserGroupId: groupIds[i]!, name: groupIds[i]! });
    if (memberIds.length > 0) await client.users.addUsersToGroup({ organizationId, organizationUserGroupId: groupIds[i]!, userIds: memberIds });
    membersOf.set(groupIds[i]!, memberIds);
  }
  const principals = [...userIds.map((id) => ({ user: { userId: id } })), ...groupIds.map((id) => ({ userGroup: { organizationId, organizationUserGroupId: id } }))];
  /** `${type}:${id}` → the users holding a grant on it (directly or through a group). */
  const holders = new Map<string, Set<string>>();
  for (const g of graph.grants) {
    const principal = principals[g.principal % principals.length]!;
    const resource =
      typeof g.resource === 'object' && 'folder' in g.resource && folderIds.length > 0
        ? { type: 'folder' as const, id: folderIds[g.resource.folder % folderIds.length]!, organizationId }
        : typeof g.resource === 'object' && 'document' in g.resource
          ? { type: 'document' as const, id: documentIds[g.resource.document % documentIds.length]!, organizationId }
          : { type: 'organization' as const, id: organizationId };
    await client.permissions.addPermissions({ ...principal, permissions: { resources: [{ ...resource, ...(g.role ? { accessRole: g.role } : {}) }] } });
    const users = 'user' in principal ? [principal.user.userId] : (membersOf.get(principal.userGroup.organizationUserGroupId) ?? []);
    const key = `${resource.type}:${resource.id}`;
    holders.set(key, new Set([...(holders.get(key) ?? []), ...users]));
  }
  for (const [i, d] of graph.documents.entries()) {
    if (d.disabled) await client.organizations.updateDocumentDisableState({ organizationId, documentId: documentIds[i]!, disabled: true });
  }
  if (graph.organizationDisabled) await client.organizations.updateOrganizationDisableState({ organizationId, disabled: true });

  /** Users holding a grant on the organization, on the document, or on its folder or an ancestor of it. */
  const grantedOn = (documentId: string): Set<string> => {
    const keys = [`organization:${organizationId}`, `document:${documentId}`];
    for (let f = folderOf.get(documentId) ?? null, seen = 0; f !== null && seen < 10; f = parentOf.get(f) ?? null, seen++) keys.push(`folder:${f}`);
    return new Set(keys.flatMap((k) => [...(holders.get(k) ?? [])]));
  };
  return { organizationId, documentIds, userIds, grantedOn };
}

describe('the same answers as Get Permissions (property: random organizations)', () => {
  it('onDocument, readersAmong and readersOf agree with Get Permissions for every user and document', async () => {
    await fc.assert(
      fc.asyncProperty(graphArb, async (graph) => {
        const { organizationId, documentIds, userIds, grantedOn } = await build(graph);
        const everyone = [...userIds, 'stranger'];
        const { data } = await client.permissions.getPermissions({ organizationId, userIds: everyone, documentIds });
        for (const documentId of documentIds) {
          const expected = new Map<string, Role>();
          for (const userId of everyone) {
            const entry = data[userId]!.documents![documentId]!;
            if (entry.accessRole) expected.set(userId, entry.accessRole);
            expect({ userId, documentId, role: roleOf(await checks.onDocument(apiKeyId, organizationId, documentId, userId)) }).toEqual({
              userId,
              documentId,
              role: entry.accessRole ?? null,
            });
          }
          const among = await checks.readersAmong(apiKeyId, organizationId, documentId, everyone);
          expect(readerRoles(among)).toEqual(Object.fromEntries(expected));

          // readersOf: the readers who hold a grant reaching the document; for a document that is not
          // public that is every reader, as nobody reads it without such a grant.
          const granted = grantedOn(documentId);
          const readers = await checks.readersOf(apiKeyId, organizationId, documentId);
          expect(readerRoles(readers)).toEqual(Object.fromEntries([...expected].filter(([userId]) => granted.has(userId))));
          if (data[everyone[0]!]!.documents![documentId]!.accessType !== 'public') expect(readerRoles(readers)).toEqual(Object.fromEntries(expected));
        }
      }),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 15), ...(process.env.PROPERTY_SEED ? { seed: Number(process.env.PROPERTY_SEED) } : {}) },
    );
  }, 300_000);
});

// ── feature-level access context ───────────────────────────────────────────

describe('contextVisible', () => {
  it('shows a thread without context, or without scalar entries, to every reader', () => {
    expect(contextVisible(null, [])).toBe(true);
    expect(contextVisible(undefined, [])).toBe(true);
    expect(contextVisible({}, [])).toBe(true);
    expect(contextVisible({ nested: { tier: 'gold' }, list: ['a'], nothing: null }, [])).toBe(true);
  });

  it('needs every scalar entry as <key>:<value> among the access fields', () => {
    expect(contextVisible({ tier: 'gold' }, ['tier:gold'])).toBe(true);
    expect(contextVisible({ tier: 'gold' }, [])).toBe(false);
    expect(contextVisible({ tier: 'gold' }, ['tier:silver'])).toBe(false);
    expect(contextVisible({ tier: 'gold', region: 'eu' }, ['tier:gold'])).toBe(false);
    expect(contextVisible({ tier: 'gold', region: 'eu' }, ['region:eu', 'other:x', 'tier:gold'])).toBe(true);
  });

  it('writes numbers and booleans as JavaScript prints them, compares exactly (case, colons in values)', () => {
    expect(contextVisible({ level: 3, beta: true }, ['level:3', 'beta:true'])).toBe(true);
    expect(contextVisible({ level: 3.5 }, ['level:3.5'])).toBe(true);
    expect(contextVisible({ beta: false }, ['beta:true'])).toBe(false);
    expect(contextVisible({ tier: 'Gold' }, ['tier:gold'])).toBe(false);
    expect(contextVisible({ url: 'a:b' }, ['url:a:b'])).toBe(true);
    expect(contextVisible({ url: 'a:b' }, ['url:a'])).toBe(false);
  });

  it('ignores non-scalar entries next to scalar ones, and takes a __proto__ key as an ordinary key', () => {
    expect(contextVisible({ tier: 'gold', meta: { a: 1 } }, ['tier:gold'])).toBe(true);
    const parsed = JSON.parse('{"__proto__": "x"}') as Record<string, unknown>;
    expect(contextVisible(parsed, [])).toBe(false);
    expect(contextVisible(parsed, ['__proto__:x'])).toBe(true);
  });
});
