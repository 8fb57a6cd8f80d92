import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/**
 * Get Permissions against an independent reference model. fast-check builds
 * random membership graphs inside one organization (a new organization per
 * run) through the SDK, then every user's entry for the organization, every
 * folder and every document must match what the model derives from the rules:
 * - organization members reach every folder and document except `restricted` ones (effective type);
 * - folder members reach the folder, its documents, and subfolders (with their
 *   documents) linked to it by an unbroken chain of inheritAccessFromParent;
 * - document members reach that document only; group grants reach the members;
 * - `public` resources give `viewer` to anyone;
 * - an inheriting subfolder takes its parent's effective type, a document in a
 *   folder its folder's, anything else its own;
 * - a disabled organization caps everything at viewer, a disabled document itself;
 * - the higher role wins.
 * The model is written "forward" (what each grant reaches), unlike the
 * server's resolver, which walks "backward" from each resource.
 */

type Role = 'viewer' | 'editor';
type AccessType = 'public' | 'restricted' | 'organizationPrivate';

// ── generated graph ────────────────────────────────────────────────────────

interface FolderSpec {
  /** Index of an earlier folder, or null for the top of the organization. */
  parent: number | null;
  accessType: AccessType | undefined;
  inheritAccessFromParent: boolean | undefined;
}

interface DocumentSpec {
  /** Index of a folder, or null for the top of the organization. */
  folder: number | null;
  accessType: AccessType | undefined;
  disabled: boolean;
}

type Via = 'addUsers' | 'addPermissions';

interface GrantSpec {
  /** Index into users ++ groups (modulo their count); groups are granted through Add Permissions only. */
  principal: number;
  /** Organization, folder or document; the index is taken modulo the count (no folder → organization). */
  resource: { type: 'organization' } | { type: 'folder'; index: number } | { type: 'document'; index: number };
  role: Role | undefined;
  via: Via;
}

interface Graph {
  folders: FolderSpec[];
  documents: DocumentSpec[];
  userCount: number;
  /** Members of each group, as user indexes (taken modulo userCount). */
  groups: number[][];
  grants: GrantSpec[];
  organizationDisabled: boolean;
}

const MAX_DEPTH = 3;

const accessTypeArb = fc.option(fc.constantFrom<AccessType>('public', 'restricted', 'organizationPrivate'), { nil: undefined });
const roleArb = fc.option(fc.constantFrom<Role>('viewer', 'editor'), { nil: undefined });

const graphArb: fc.Arbitrary<Graph> = fc
  .record({
    rawFolders: fc.array(
      fc.record({ parentPick: fc.nat({ max: 3 }), topLevel: fc.boolean(), accessType: accessTypeArb, inheritAccessFromParent: fc.option(fc.boolean(), { nil: undefined }) }),
      { maxLength: 4 },
    ),
    rawDocuments: fc.array(fc.record({ folderPick: fc.option(fc.nat({ max: 3 }), { nil: null }), accessType: accessTypeArb, disabled: fc.boolean() }), {
      minLength: 1,
      maxLength: 5,
    }),
    userCount: fc.integer({ min: 2, max: 4 }),
    groups: fc.array(fc.uniqueArray(fc.nat({ max: 3 }), { maxLength: 3 }), { maxLength: 2 }),
    grants: fc.array(
      fc.record({
        principal: fc.nat({ max: 5 }),
        resource: fc.oneof(
          fc.constant({ type: 'organization' as const }),
          fc.record({ type: fc.constant('folder' as const), index: fc.nat({ max: 3 }) }),
          fc.record({ type: fc.constant('document' as const), index: fc.nat({ max: 4 }) }),
        ),
        role: roleArb,
        via: fc.constantFrom<Via>('addUsers', 'addPermissions'),
      }),
      { maxLength: 8 },
    ),
    organizationDisabled: fc.boolean(),
  })
  .map(({ rawFolders, rawDocuments, ...rest }) => {
    // Parents are earlier folders no deeper than MAX_DEPTH - 1, so the tree has 1–3 levels.
    const depth: number[] = [];
    const folders = rawFolders.map((f, i): FolderSpec => {
      const candidates = depth.map((d, j) => [d, j] as const).filter(([d]) => d < MAX_DEPTH).map(([, j]) => j);
      const parent = f.topLevel || candidates.length === 0 ? null : candidates[f.parentPick % candidates.length]!;
      depth[i] = parent === null ? 1 : depth[parent]! + 1;
      return { parent, accessType: f.accessType, inheritAccessFromParent: f.inheritAccessFromParent };
    });
    const documents = rawDocuments.map(
      (d): DocumentSpec => ({ folder: d.folderPick === null || folders.length === 0 ? null : d.folderPick % folders.length, accessType: d.accessType, disabled: d.disabled }),
    );
    return { folders, documents, ...rest };
  });

// ── reference model ────────────────────────────────────────────────────────

interface ModelFolder {
  id: string;
  parentId: string | null;
  accessType: AccessType;
  inherits: boolean;
}
interface ModelDocument {
  id: string;
  folderId: string | null;
  accessType: AccessType;
  disabled: boolean;
}
type Principal = { kind: 'user' | 'group'; id: string };
type ResourceRef = { type: 'organization' | 'folder' | 'document'; id: string };

interface Model {
  organizationId: string;
  organizationDisabled: boolean;
  folders: ModelFolder[];
  documents: ModelDocument[];
  /** groupId → member userIds */
  groups: Map<string, Set<string>>;
  /** `${kind}:${principal}|${type}:${resource}` → role (one grant per principal and resource; granting again replaces it). */
  grants: Map<string, { principal: Principal; resource: ResourceRef; role: Role }>;
}

const grantKey = (p: Principal, r: ResourceRef) => `${p.kind}:${p.id}|${r.type}:${r.id}`;

/** Add Users: a new member without a role is an editor; an existing one keeps the role unless one is given. */
function modelAddUsers(model: Model, userId: string, resource: ResourceRef, role: Role | undefined) {
  const principal: Principal = { kind: 'user', id: userId };
  const key = grantKey(principal, resource);
  const existing = model.grants.get(key);
  model.grants.set(key, { principal, resource, role: role ?? existing?.role ?? 'editor' });
}

/** Add Permissions: the role (default editor) replaces any earlier grant. */
function modelAddPermissions(model: Model, principal: Principal, resource: ResourceRef, role: Role | undefined) {
  model.grants.set(grantKey(principal, resource), { principal, resource, role: role ?? 'editor' });
}

const higher = (a: Role | null, b: Role | null): Role | null => (a === 'editor' || b === 'editor' ? 'editor' : (a ?? b));

interface Expected {
  organization: Role | null;
  folders: Map<string, { role: Role | null; accessType: AccessType }>;
  documents: Map<string, { role: Role | null; accessType: AccessType }>;
}

function expectedFor(model: Model, userId: string): Expected {
  const folderById = new Map(model.folders.map((f) => [f.id, f]));

  const effectiveFolderType = (id: string): AccessType => {
    const f = folderById.get(id)!;
    return f.inherits && f.parentId !== null ? effectiveFolderType(f.parentId) : f.accessType;
  };
  const effectiveDocumentType = (d: ModelDocument): AccessType => (d.folderId !== null ? effectiveFolderType(d.folderId) : d.accessType);

  /** The folders a membership of `root` reaches: itself and every folder tied to it by inheriting links. */
  const reachedFolders = (root: string): Set<string> => {
    const reached = new Set([root]);
    let grew = true;
    while (grew) {
      grew = false;
      for (const f of model.folders) {
        if (!reached.has(f.id) && f.inherits && f.parentId !== null && reached.has(f.parentId)) {
          reached.add(f.id);
          grew = true;
        }
      }
    }
    return reached;
  };

  const folderRoles = new Map<string, Role | null>(model.folders.map((f) => [f.id, null]));
  const documentRoles = new Map<string, Role | null>(model.documents.map((d) => [d.id, null]));
  let organizationRole: Role | null = null;
  const raiseFolder = (id: string, role: Role) => folderRoles.set(id, higher(folderRoles.get(id) ?? null, role));
  const raiseDocument = (id: string, role: Role) => documentRoles.set(id, higher(documentRoles.get(id) ?? null, role));

  // Anyone: viewer on public resources.
  for (const f of model.folders) if (effectiveFolderType(f.id) === 'public') raiseFolder(f.id, 'viewer');
  for (const d of model.documents) if (effectiveDocumentType(d) === 'public') raiseDocument(d.id, 'viewer');

  // Each grant the user holds, directly or through a group, forward to what it reaches.
  for (const { principal, resource, role } of model.grants.values()) {
    const mine = principal.kind === 'user' ? principal.id === userId : (model.groups.get(principal.id)?.has(userId) ?? false);
    if (!mine) continue;
    if (resource.type === 'organization') {
      organizationRole = higher(organizationRole, role);
      for (const f of model.folders) if (effectiveFolderType(f.id) !== 'restricted') raiseFolder(f.id, role);
      for (const d of model.documents) if (effectiveDocumentType(d) !== 'restricted') raiseDocument(d.id, role);
    } else if (resource.type === 'folder') {
      const reached = reachedFolders(resource.id);
      for (const id of reached) raiseFolder(id, role);
      for (const d of model.documents) if (d.folderId !== null && reached.has(d.folderId)) raiseDocument(d.id, role);
    } else {
      raiseDocument(resource.id, role);
    }
  }

  const cap = (role: Role | null, readOnly: boolean): Role | null => (role && readOnly ? 'viewer' : role);
  return {
    organization: cap(organizationRole, model.organizationDisabled),
    folders: new Map(model.folders.map((f) => [f.id, { role: cap(folderRoles.get(f.id) ?? null, model.organizationDisabled), accessType: effectiveFolderType(f.id) }])),
    documents: new Map(
      model.documents.map((d) => [d.id, { role: cap(documentRoles.get(d.id) ?? null, model.organizationDisabled || d.disabled), accessType: effectiveDocumentType(d) }]),
    ),
  };
}

/** The Get Permissions entry the model predicts. */
function entry(role: Role | null, accessType?: AccessType) {
  const type = accessType ? { accessType } : {};
  return role ? { accessRole: role, ...type } : { error: expect.any(String), errorCode: 'permission_denied', ...type };
}

// ── building the graph through HTTP ────────────────────────────────────────

let server: TestServer;
let client: Client;
let run = 0;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_PER_MINUTE: '100000000' });
  client = server.client(await server.workspace());
});
afterAll(() => server?.close());

/** Creates the graph in a new organization and returns the model of what was created. */
async function build(graph: Graph): Promise<{ model: Model; userIds: string[] }> {
  const n = ++run;
  const organizationId = `prop-${n}`;
  const folderId = (i: number) => `r${n}-f${i}`;
  const documentId = (i: number) => `r${n}-d${i}`;
  const userIds = Array.from({ length: graph.userCount }, (_, i) => `r${n}-u${i}`);
  const groupIds = graph.groups.map((_, i) => `r${n}-g${i}`);
  const model: Model = { organizationId, organizationDisabled: graph.organizationDisabled, folders: [], documents: [], groups: new Map(), grants: new Map() };

  await client.organizations.addOrganization({ organizationId });

  for (const [i, f] of graph.folders.entries()) {
    const parentId = f.parent === null ? null : folderId(f.parent);
    await client.organizations.addFolder({
      organizationId,
      folderId: folderId(i),
      ...(parentId !== null ? { parentFolderId: parentId } : {}),
      ...(f.accessType !== undefined ? { accessType: f.accessType } : {}),
      ...(f.inheritAccessFromParent !== undefined ? { inheritAccessFromParent: f.inheritAccessFromParent } : {}),
    });
    // Defaults: organizationPrivate; a subfolder inherits unless told otherwise.
    model.folders.push({ id: folderId(i), parentId, accessType: f.accessType ?? 'organizationPrivate', inherits: f.inheritAccessFromParent ?? parentId !== null });
  }

  for (const [i, d] of graph.documents.entries()) {
    const inFolder = d.folder === null ? null : folderId(d.folder);
    await client.organizations.addDocument({
      organizationId,
      documentId: documentId(i),
      ...(inFolder !== null ? { folderId: inFolder } : {}),
      ...(d.accessType !== undefined ? { accessType: d.accessType } : {}),
    });
    model.documents.push({ id: documentId(i), folderId: inFolder, accessType: d.accessType ?? 'organizationPrivate', disabled: d.disabled });
  }

  // Users must be known before they can join a group: Generate Token with no resources registers them without any grant.
  for (const userId of userIds) {
    await client.permissions.generateToken({ userId, userProperties: { name: userId, email: `${userId}@example.com` }, permissions: { resources: [] } });
  }

  for (const [i, members] of graph.groups.entries()) {
    const organizationUserGroupId = groupIds[i]!;
    await client.users.addUserGroup({ organizationId, organizationUserGroupId, name: organizationUserGroupId });
    const memberIds = [...new Set(members.map((m) => userIds[m % userIds.length]!))];
    if (memberIds.length > 0) await client.users.addUsersToGroup({ organizationId, organizationUserGroupId, userIds: memberIds });
    model.groups.set(organizationUserGroupId, new Set(memberIds));
  }

  const principals: Principal[] = [...userIds.map((id) => ({ kind: 'user' as const, id })), ...groupIds.map((id) => ({ kind: 'group' as const, id }))];
  for (const g of graph.grants) {
    const principal = principals[g.principal % principals.length]!;
    const resource: ResourceRef =
      g.resource.type === 'document'
        ? { type: 'document', id: documentId(g.resource.index % graph.documents.length) }
        : g.resource.type === 'folder' && graph.folders.length > 0
          ? { type: 'folder', id: folderId(g.resource.index % graph.folders.length) }
          : { type: 'organization', id: organizationId };
    const role = g.role !== undefined ? { accessRole: g.role } : {};

    if (g.via === 'addUsers' && principal.kind === 'user') {
      const level = resource.type === 'folder' ? { folderId: resource.id } : resource.type === 'document' ? { documentId: resource.id } : {};
      await client.users.addUsers({ organizationId, ...level, users: [{ userId: principal.id, ...role }] });
      modelAddUsers(model, principal.id, resource, g.role);
    } else {
      const target = principal.kind === 'user' ? { user: { userId: principal.id } } : { userGroup: { organizationId, organizationUserGroupId: principal.id } };
      const scope = resource.type === 'organization' ? {} : { organizationId };
      await client.permissions.addPermissions({ ...target, permissions: { resources: [{ type: resource.type, id: resource.id, ...scope, ...role }] } });
      modelAddPermissions(model, principal, resource, g.role);
    }
  }

  for (const d of model.documents) {
    if (d.disabled) await client.organizations.updateDocumentDisableState({ organizationId, documentId: d.id, disabled: true });
  }
  if (graph.organizationDisabled) await client.organizations.updateOrganizationDisableState({ organizationId, disabled: true });

  return { model, userIds };
}

describe('Get Permissions (property: random membership graphs against a reference model)', () => {
  it('matches the reference model for every user, folder and document', async () => {
    await fc.assert(
      fc.asyncProperty(graphArb, async (graph) => {
        const { model, userIds } = await build(graph);
        // A user id the service has never seen: public resources only.
        const everyone = [...userIds, `stranger-${run}`];
        const { data } = await client.permissions.getPermissions({
          organizationId: model.organizationId,
          userIds: everyone,
          folderIds: model.folders.map((f) => f.id),
          documentIds: model.documents.map((d) => d.id),
        });
        expect(Object.keys(data).sort()).toEqual([...everyone].sort());

        for (const userId of everyone) {
          const want = expectedFor(model, userId);
          expect({ user: userId, ...data[userId] }).toEqual({
            user: userId,
            organization: { [model.organizationId]: entry(want.organization) },
            folders: Object.fromEntries([...want.folders].map(([id, e]) => [id, entry(e.role, e.accessType)])),
            documents: Object.fromEntries([...want.documents].map(([id, e]) => [id, entry(e.role, e.accessType)])),
          });
        }
      }),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 25), ...(process.env.PROPERTY_SEED ? { seed: Number(process.env.PROPERTY_SEED) } : {}) },
    );
  }, 300_000);
});

// ── temporary grants ───────────────────────────────────────────────────────

describe('temporary grants', () => {
  it('Get Permissions reports a live temporary grant with its expiresAt', async () => {
    const organizationId = 'temp-live';
    await client.organizations.addDocument({ organizationId, documentId: 'memo', accessType: 'restricted' });
    const expiresAt = Math.floor(Date.now() / 1000) + 5;
    await client.permissions.addPermissions({
      user: { userId: 'temp-user' },
      permissions: { resources: [{ type: 'document', id: 'memo', organizationId, accessRole: 'editor', expiresAt }] },
    });
    const { data } = await client.permissions.getPermissions({ organizationId, userIds: ['temp-user'], documentIds: ['memo'] });
    expect(data['temp-user']!.documents!.memo).toEqual({ accessRole: 'editor', accessType: 'restricted', expiresAt });
  });

  it('a temporary grant lapses when the (fake) clock passes expiresAt, with no job running', async () => {
    let fakeMs = Date.now();
    const clocked = await startTestServer({}, { overrides: { clock: { now: () => new Date(fakeMs), nowMs: () => fakeMs } } });
    try {
      const c = clocked.client(await clocked.workspace());
      const organizationId = 'temp-lapse';
      await c.organizations.addDocument({ organizationId, documentId: 'memo', accessType: 'restricted' });
      await c.organizations.addFolder({ organizationId, folderId: 'box', accessType: 'restricted' });
      const expiresAt = Math.floor(fakeMs / 1000) + 60;
      await c.permissions.addPermissions({
        user: { userId: 'tina' },
        permissions: {
          resources: [
            { type: 'document', id: 'memo', organizationId, accessRole: 'viewer', expiresAt },
            { type: 'folder', id: 'box', organizationId, accessRole: 'editor', expiresAt },
            { type: 'organization', id: organizationId, accessRole: 'editor', expiresAt },
          ],
        },
      });
      const ask = async () => (await c.permissions.getPermissions({ organizationId, userIds: ['tina'], folderIds: ['box'], documentIds: ['memo'] })).data.tina!;

      const before = await ask();
      expect(before.organization![organizationId]).toEqual({ accessRole: 'editor', expiresAt });
      expect(before.folders!.box).toEqual({ accessRole: 'editor', accessType: 'restricted', expiresAt });
      expect(before.documents!.memo).toEqual({ accessRole: 'viewer', accessType: 'restricted', expiresAt });

      fakeMs += 120_000;
      const after = await ask();
      expect(after.organization![organizationId]).toEqual({ error: expect.any(String), errorCode: 'permission_denied' });
      expect(after.folders!.box).toEqual({ error: expect.any(String), errorCode: 'permission_denied', accessType: 'restricted' });
      expect(after.documents!.memo).toEqual({ error: expect.any(String), errorCode: 'permission_denied', accessType: 'restricted' });
    } finally {
      await clocked.close();
    }
  });
});
