// The floor for the bench's data-bound scenarios: a minimal server on the same
// stack as the real one (Express with express.json(), the same database driver
// — better-sqlite3 or pg — on the same DATABASE_URL, hand-written SQL) that
// gives the same response JSON for the operations it knows, doing only what any
// implementation must do to give that answer:
//
// - authentication: one indexed join per request (the auth token's digest to
//   its API key), then the API key's digest compared; no cache, no expiry or
//   grace-period rules (the bench's key is live);
// - Get Activity Logs (/v2/activities/get): the organization must exist (one
//   primary-key lookup), then one keyset query, JSON.parse of the two JSON
//   columns, the contract's fields; no filters;
// - Get Documents (/v2/organizations/documents/get): the advancedQueries
//   feature toggle (one primary-key lookup), the organization, one keyset
//   query and the organization's folders (for a document's inherited access
//   type); no documentIds / folderId filters.
//
// Its page tokens are plain base64url cursors (no integrity check), so they
// differ from the server's; run.ts compares only whether a token is there.
// Prints `listening on http://127.0.0.1:PORT` on stdout once ready; exits when
// its stdin closes, so it cannot outlive the bench process.
import { createHash, timingSafeEqual } from 'node:crypto';
import express from 'express';
import { serveUntilStdinEnds } from './child-process.mjs';

const DATABASE_URL = process.env.DATABASE_URL ?? '';
const DEFAULT_PAGE_SIZE = 1000;

/** `query(sql, params)` → rows, with `?` placeholders on either database. */
async function openDatabase(url) {
  if (url.startsWith('file:')) {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(url.slice('file:'.length).split('?')[0]);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    const statements = new Map();
    return {
      async query(sql, params) {
        let statement = statements.get(sql);
        if (!statement) statements.set(sql, (statement = db.prepare(sql)));
        return statement.all(...params.map((p) => (typeof p === 'boolean' ? Number(p) : p)));
      },
      close: () => db.close(),
    };
  }
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, max: Number(process.env.FLOOR_POOL_SIZE ?? 10) });
  const texts = new Map();
  return {
    async query(sql, params) {
      let text = texts.get(sql);
      if (text === undefined) {
        let n = 0;
        texts.set(sql, (text = sql.replace(/\?/g, () => `$${++n}`)));
      }
      // A named statement: prepared once per connection, as Prisma's adapter does.
      return (await pool.query({ name: `q${[...texts.keys()].indexOf(sql)}`, text, values: params })).rows;
    },
    close: () => pool.end(),
  };
}

const db = await openDatabase(DATABASE_URL);
const digest = (secret) => createHash('sha256').update(secret, 'utf8').digest('hex');

class Refused extends Error {
  constructor(http, status, message) {
    super(message);
    this.http = http;
    this.status = status;
  }
}

async function authenticate(req) {
  const apiKey = req.get('x-service-api-key');
  const authToken = req.get('x-service-auth-token');
  if (!apiKey || !authToken) throw new Refused(401, 'UNAUTHENTICATED', 'missing header(s)');
  const [row] = await db.query(
    'SELECT k."id", k."keyDigest" FROM "AuthToken" t JOIN "ApiKey" k ON k."id" = t."apiKeyId" WHERE t."tokenDigest" = ?',
    [digest(authToken)],
  );
  const keyDigest = Buffer.from(digest(apiKey));
  if (!row || !timingSafeEqual(Buffer.from(row.keyDigest), keyDigest)) throw new Refused(403, 'PERMISSION_DENIED', 'invalid API key or auth token');
  return { apiKeyId: row.id, apiKey };
}

async function organizationOrThrow(apiKeyId, organizationId) {
  const [row] = await db.query('SELECT 1 AS "one" FROM "Organization" WHERE "apiKeyId" = ? AND "id" = ?', [apiKeyId, organizationId]);
  if (!row) throw new Refused(404, 'NOT_FOUND', `organization ${organizationId} does not exist`);
}

const encodeToken = (cursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');
const decodeToken = (token) => (token ? JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) : undefined);

/** The page and the next page's token from `pageSize + 1` rows. */
function pageOf(rows, pageSize, cursorOf) {
  const items = rows.slice(0, pageSize);
  const last = items[items.length - 1];
  return { items, pageToken: rows.length > pageSize && last !== undefined ? encodeToken(cursorOf(last)) : null };
}

const paged = (message, page) => ({ result: { status: 'success', message, data: page.items, pageToken: page.pageToken } });

const handlers = {
  async '/v2/activities/get'(app, data) {
    await organizationOrThrow(app.apiKeyId, data.organizationId);
    const pageSize = data.pageSize ?? DEFAULT_PAGE_SIZE;
    const desc = (data.order ?? 'desc') === 'desc';
    const after = decodeToken(data.pageToken);
    const cmp = desc ? '<' : '>';
    const dir = desc ? 'DESC' : 'ASC';
    const rows = await db.query(
      `SELECT "id", "organizationId", "documentId", "featureType", "actionType", "actionUser", "targetEntityId", "template", "templateData", "timestamp"
       FROM "Activity" WHERE "apiKeyId" = ? AND "organizationId" = ?
       ${after ? `AND ("timestamp" ${cmp} ? OR ("timestamp" = ? AND "id" ${cmp} ?))` : ''}
       ORDER BY "timestamp" ${dir}, "id" ${dir} LIMIT ?`,
      [app.apiKeyId, data.organizationId, ...(after ? [after[0], after[0], after[1]] : []), pageSize + 1],
    );
    const page = pageOf(rows, pageSize, (row) => [Number(row.timestamp), row.id]);
    page.items = page.items.map((row) => ({
      id: row.id,
      featureType: row.featureType,
      actionType: row.actionType,
      actionUser: JSON.parse(row.actionUser),
      targetEntityId: row.targetEntityId,
      displayMessageTemplate: row.template,
      displayMessageTemplateData: JSON.parse(row.templateData),
      metadata: { apiKey: app.apiKey, organizationId: row.organizationId, ...(row.documentId !== null ? { documentId: row.documentId } : {}) },
      timestamp: Number(row.timestamp),
    }));
    return paged('Activity logs retrieved successfully.', page);
  },

  async '/v2/organizations/documents/get'(app, data) {
    const [toggle] = await db.query('SELECT "enabled" FROM "FeatureToggle" WHERE "apiKeyId" = ? AND "name" = ?', [app.apiKeyId, 'advancedQueries']);
    if (toggle && !toggle.enabled) throw new Refused(400, 'FAILED_PRECONDITION', 'advancedQueries is disabled');
    await organizationOrThrow(app.apiKeyId, data.organizationId);
    const pageSize = data.pageSize ?? DEFAULT_PAGE_SIZE;
    const after = decodeToken(data.pageToken);
    const [rows, folderRows] = await Promise.all([
      db.query(
        `SELECT "id", "name", "disabled", "accessType", "organizationId", "folderId", "createdAt", "updatedAt"
         FROM "Document" WHERE "apiKeyId" = ? AND "organizationId" = ?
         ${after ? 'AND ("createdAt" > ? OR ("createdAt" = ? AND "id" > ?))' : ''}
         ORDER BY "createdAt" ASC, "id" ASC LIMIT ?`,
        [app.apiKeyId, data.organizationId, ...(after ? [after[0], after[0], after[1]] : []), pageSize + 1],
      ),
      db.query('SELECT "id", "parentId", "accessType", "inheritAccessFromParent" FROM "Folder" WHERE "apiKeyId" = ? AND "organizationId" = ?', [
        app.apiKeyId,
        data.organizationId,
      ]),
    ]);
    const folders = new Map(folderRows.map((f) => [f.id, f]));
    const folderAccess = (id) => {
      const seen = new Set();
      let folder = folders.get(id);
      while (folder && Boolean(folder.inheritAccessFromParent) && folder.parentId !== null && !seen.has(folder.id)) {
        seen.add(folder.id);
        const parent = folders.get(folder.parentId);
        if (!parent) break;
        folder = parent;
      }
      return folder?.accessType ?? 'organizationPrivate';
    };
    const page = pageOf(rows, pageSize, (row) => [Number(row.createdAt), row.id]);
    page.items = page.items.map((row) => ({
      id: row.id,
      documentName: row.name,
      disabled: Boolean(row.disabled),
      accessType: row.folderId !== null && folders.has(row.folderId) ? folderAccess(row.folderId) : row.accessType,
      organizationId: row.organizationId,
      folderId: row.folderId,
      createdAt: Number(row.createdAt),
      lastUpdated: Number(row.updatedAt),
    }));
    return paged('Documents retrieved successfully.', page);
  },

  async '/v2/auth/permissions/get'(app, data) {
    const userIds = [...new Set(data.userIds ?? [])];
    const folderIds = [...new Set(data.folderIds ?? [])];
    const documentIds = [...new Set(data.documentIds ?? [])];
    const { organizationId } = data;
    const list = (n) => Array.from({ length: n }, () => '?').join(', ');
    const [[organization], folderRows, documentRows, memberships] = await Promise.all([
      db.query('SELECT "disabled" FROM "Organization" WHERE "apiKeyId" = ? AND "id" = ?', [app.apiKeyId, organizationId]),
      db.query('SELECT "id", "parentId", "accessType", "inheritAccessFromParent" FROM "Folder" WHERE "apiKeyId" = ? AND "organizationId" = ?', [app.apiKeyId, organizationId]),
      documentIds.length === 0
        ? []
        : db.query(`SELECT "id", "folderId", "accessType", "disabled" FROM "Document" WHERE "apiKeyId" = ? AND "organizationId" = ? AND "id" IN (${list(documentIds.length)})`, [
            app.apiKeyId,
            organizationId,
            ...documentIds,
          ]),
      db.query(`SELECT "userId", "groupId" FROM "UserGroupMember" WHERE "apiKeyId" = ? AND "organizationId" = ? AND "userId" IN (${list(userIds.length)})`, [
        app.apiKeyId,
        organizationId,
        ...userIds,
      ]),
    ]);
    const groupsOfUser = new Map();
    for (const m of memberships) groupsOfUser.set(m.userId, [...(groupsOfUser.get(m.userId) ?? []), m.groupId]);
    const groupIds = [...new Set(memberships.map((m) => m.groupId))];
    // The users' (and their groups') live grants: no expiry, or one in the future (Unix seconds).
    const grants = await db.query(
      `SELECT "resourceType", "resourceId", "principalType", "principalId", "accessRole", "expiresAt", "accessFields" FROM "Grant"
       WHERE "apiKeyId" = ? AND "organizationId" = ?
         AND (("principalType" = 'user' AND "principalId" IN (${list(userIds.length)}))${groupIds.length > 0 ? ` OR ("principalType" = 'group' AND "principalId" IN (${list(groupIds.length)}))` : ''})
         AND ("expiresAt" IS NULL OR "expiresAt" > ?)`,
      [app.apiKeyId, organizationId, ...userIds, ...groupIds, Math.floor(Date.now() / 1000)],
    );
    const folders = new Map(folderRows.map((f) => [f.id, { ...f, inheritAccessFromParent: Boolean(f.inheritAccessFromParent) }]));
    const documents = new Map(documentRows.map((d) => [d.id, { ...d, disabled: Boolean(d.disabled) }]));
    const byResource = new Map();
    for (const g of grants) {
      const key = `${g.resourceType}\u0000${g.resourceId}`;
      byResource.set(key, [...(byResource.get(key) ?? []), g]);
    }

    // The access rules (server/domains/access/resolve.ts): the higher role wins; at equal role a permanent grant, then the later expiry.
    const RANK = { viewer: 1, editor: 2 };
    const better = (a, b) => {
      if (!a) return b;
      if (!b) return a;
      if (RANK[a.accessRole] !== RANK[b.accessRole]) return RANK[a.accessRole] > RANK[b.accessRole] ? a : b;
      if (a.expiresAt === undefined) return a;
      if (b.expiresAt === undefined) return b;
      return a.expiresAt >= b.expiresAt ? a : b;
    };
    const grantsOf = (userId, type, id) => {
      const groups = groupsOfUser.get(userId) ?? [];
      return (byResource.get(`${type}\u0000${id}`) ?? []).filter((g) => (g.principalType === 'user' ? g.principalId === userId : groups.includes(g.principalId)));
    };
    const granted = (userId, type, id) => {
      let best = null;
      for (const g of grantsOf(userId, type, id)) best = better(best, g.expiresAt === null ? { accessRole: g.accessRole } : { accessRole: g.accessRole, expiresAt: Number(g.expiresAt) });
      return best;
    };
    const folderAccess = (id) => {
      const seen = new Set();
      let folder = folders.get(id);
      while (folder && folder.inheritAccessFromParent && folder.parentId !== null && !seen.has(folder.id)) {
        seen.add(folder.id);
        const parent = folders.get(folder.parentId);
        if (!parent) break;
        folder = parent;
      }
      return folder?.accessType ?? 'organizationPrivate';
    };
    const documentAccess = (d) => (d.folderId !== null && folders.has(d.folderId) ? folderAccess(d.folderId) : d.accessType);
    const folderMembership = (userId, folderId) => {
      const seen = new Set();
      let best = null;
      let folder = folders.get(folderId);
      while (folder && !seen.has(folder.id)) {
        seen.add(folder.id);
        best = better(best, granted(userId, 'folder', folder.id));
        if (!folder.inheritAccessFromParent || folder.parentId === null) break;
        folder = folders.get(folder.parentId);
      }
      return best;
    };
    const byAccessType = (userId, accessType) => {
      const member = accessType === 'restricted' ? null : granted(userId, 'organization', organizationId);
      return accessType === 'public' ? better(member, { accessRole: 'viewer' }) : member;
    };
    const cap = (access, readOnly) => (!access || !readOnly || access.accessRole === 'viewer' ? access : { ...access, accessRole: 'viewer' });
    const orgDisabled = Boolean(organization?.disabled);
    const entry = (access, what, userId, accessType) =>
      access
        ? { accessRole: access.accessRole, ...(accessType ? { accessType } : {}), ...(access.expiresAt !== undefined ? { expiresAt: access.expiresAt } : {}) }
        : { error: `user ${userId} does not have access to ${what}`, errorCode: 'permission_denied', ...(accessType ? { accessType } : {}) };
    const missing = (what) => ({ error: `${what} does not exist`, errorCode: 'does_not_exist' });

    let anyMissing = false;
    const result = {};
    for (const userId of userIds) {
      const maps = { organization: {}, folders: {}, documents: {} };
      if (!organization) {
        anyMissing = true;
        maps.organization[organizationId] = missing(`organization ${organizationId}`);
      } else {
        maps.organization[organizationId] = entry(cap(granted(userId, 'organization', organizationId), orgDisabled), `organization ${organizationId}`, userId);
      }
      for (const folderId of folderIds) {
        if (!organization || !folders.has(folderId)) {
          anyMissing = true;
          maps.folders[folderId] = missing(`folder ${folderId}`);
          continue;
        }
        const accessType = folderAccess(folderId);
        const access = cap(better(folderMembership(userId, folderId), byAccessType(userId, accessType)), orgDisabled);
        maps.folders[folderId] = entry(access, `folder ${folderId}`, userId, accessType);
      }
      const fields = new Set();
      for (const documentId of documentIds) {
        const d = documents.get(documentId);
        if (!organization || !d) {
          anyMissing = true;
          maps.documents[documentId] = missing(`document ${documentId}`);
          continue;
        }
        const accessType = documentAccess(d);
        let access = granted(userId, 'document', d.id);
        if (d.folderId !== null) access = better(access, folderMembership(userId, d.folderId));
        access = cap(better(access, byAccessType(userId, accessType)), orgDisabled || d.disabled);
        maps.documents[documentId] = entry(access, `document ${documentId}`, userId, accessType);
        for (const g of grantsOf(userId, 'document', documentId)) for (const f of g.accessFields === null ? [] : JSON.parse(g.accessFields)) fields.add(f);
      }
      if (organization && fields.size > 0) maps.context = { accessFields: [...fields].sort() };
      result[userId] = maps;
    }
    if (anyMissing) throw new Refused(404, 'NOT_FOUND', 'one or more of the requested resources do not exist; see details');
    return { result: { status: 'success', message: 'Permissions retrieved successfully.', data: result } };
  },
};

const app = express();
app.disable('x-powered-by');
app.disable('etag');
app.use(express.json());
for (const [path, handler] of Object.entries(handlers)) {
  app.post(path, (req, res) => {
    authenticate(req)
      .then((principal) => handler(principal, req.body?.data ?? {}))
      .then(
        (body) => res.status(200).json(body),
        (error) => {
          const http = error instanceof Refused ? error.http : 500;
          res.status(http).json({ error: { message: error instanceof Refused ? error.message : 'internal error', status: error.status ?? 'INTERNAL' } });
        },
      );
  });
}

serveUntilStdinEnds(app, () => db.close());
