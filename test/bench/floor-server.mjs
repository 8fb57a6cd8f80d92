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
//   type); no documentIds / folderId filters;
// - Get Permissions (/v2/auth/permissions/get): the access rules over the
//   organization's folders and the users' grants (accessRules below);
// - Get Notifications (/v2/notifications/get) for one user, no filters: the
//   two feature toggles and the organization, one keyset query of the user's
//   recipient rows joined to their notifications, then every recipient of
//   those and the user's row;
// - Get CRDT Data (/v2/crdt/get) of text: the organization, the document and
//   the editor's row, the stored Yjs state decoded into a Y.Doc for the text
//   and encoded again; the REST base written only when it changed;
// - Add Comment Annotations (/v2/commentannotations/add): in one transaction,
//   the organization and document (created when missing), the configs and
//   users the notification audience needs, the readers among its candidates
//   (accessRules), then one INSERT per table: threads, comments, mentions,
//   read marks, domain events, notifications, recipients. It writes no
//   activity records, emails or webhook messages, so it refuses (501) while
//   their settings are on.
//
// Its page tokens are plain base64url cursors (no integrity check), so they
// differ from the server's; run.ts compares only whether a token is there. The
// server's tokens carry the same cursor before their tag, so the floor reads
// those too (without checking the tag), and a scenario may pass one to both.
// Prints `listening on http://127.0.0.1:PORT` on stdout once ready; exits when
// its stdin closes, so it cannot outlive the bench process.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import express from 'express';
import * as Y from 'yjs';
import { serveUntilStdinEnds } from './child-process.mjs';
import { openDatabase } from './floor-database.mjs';

const DATABASE_URL = process.env.DATABASE_URL ?? '';
const DEFAULT_PAGE_SIZE = 1000;

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
// A server token is `<the same cursor>.<tag>`: the cursor is read, the tag not checked.
const decodeToken = (token) => (token ? JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8')) : undefined);

/** The page and the next page's token from `pageSize + 1` rows. */
function pageOf(rows, pageSize, cursorOf) {
  const items = rows.slice(0, pageSize);
  const last = items[items.length - 1];
  return { items, pageToken: rows.length > pageSize && last !== undefined ? encodeToken(cursorOf(last)) : null };
}

const paged = (message, page) => ({ result: { status: 'success', message, data: page.items, pageToken: page.pageToken } });
const ok = (message, data) => ({ result: { status: 'success', message, data } });
const list = (n) => Array.from({ length: n }, () => '?').join(', ');
/** A value of a thread's context that takes part in the access context rule (server/domains/access/checks.ts contextVisible). */
const scalar = (v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/**
 * IDs of the server's layout (server/lib/ids.ts): prefix, 10 characters of
 * milliseconds and 16 random ones in Crockford base32. Within a millisecond
 * the random part counts up, so a comment's orderKey keeps the order of the
 * comments added.
 */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
let lastMs = -1;
let lastRandom = [];
function nextId(prefix) {
  const ms = Math.max(Date.now(), lastMs);
  if (ms === lastMs) {
    let i = lastRandom.length - 1;
    while (i >= 0 && lastRandom[i] === 31) lastRandom[i--] = 0;
    if (i >= 0) lastRandom[i]++;
  } else lastRandom = Array.from(randomBytes(16), (b) => b & 31);
  lastMs = ms;
  let time = '';
  for (let i = 0, rest = ms; i < 10; i++, rest = Math.floor(rest / 32)) time = ALPHABET[rest % 32] + time;
  return `${prefix}_${time}${lastRandom.map((d) => ALPHABET[d]).join('')}`;
}

/** The users' group memberships in the organization, and their and their groups' live grants (no expiry, or one in the future, Unix seconds). */
async function grantsOfUsers(query, apiKeyId, organizationId, userIds) {
  if (userIds.length === 0) return { memberships: [], grants: [] };
  const memberships = await query(`SELECT "userId", "groupId" FROM "UserGroupMember" WHERE "apiKeyId" = ? AND "organizationId" = ? AND "userId" IN (${list(userIds.length)})`, [
    apiKeyId,
    organizationId,
    ...userIds,
  ]);
  const groupIds = [...new Set(memberships.map((m) => m.groupId))];
  const grants = await query(
    `SELECT "resourceType", "resourceId", "principalType", "principalId", "accessRole", "expiresAt", "accessFields" FROM "Grant"
     WHERE "apiKeyId" = ? AND "organizationId" = ?
       AND (("principalType" = 'user' AND "principalId" IN (${list(userIds.length)}))${groupIds.length > 0 ? ` OR ("principalType" = 'group' AND "principalId" IN (${list(groupIds.length)}))` : ''})
       AND ("expiresAt" IS NULL OR "expiresAt" > ?)`,
    [apiKeyId, organizationId, ...userIds, ...groupIds, Math.floor(Date.now() / 1000)],
  );
  return { memberships, grants };
}

/**
 * The access rules of server/domains/access/resolve.ts over one
 * organization's folders and the users' grants: organization members plus
 * folder and document grants, public and restricted, the higher role wins,
 * disabled means viewer at most.
 */
function accessRules(organizationId, folderRows, { memberships, grants }) {
  const folders = new Map(folderRows.map((f) => [f.id, { ...f, inheritAccessFromParent: Boolean(f.inheritAccessFromParent) }]));
  const groupsOfUser = new Map();
  for (const m of memberships) groupsOfUser.set(m.userId, [...(groupsOfUser.get(m.userId) ?? []), m.groupId]);
  const byResource = new Map();
  for (const g of grants) {
    const key = `${g.resourceType}\u0000${g.resourceId}`;
    byResource.set(key, [...(byResource.get(key) ?? []), g]);
  }
  // At equal role a permanent grant, then the later expiry.
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
  return {
    folders,
    better,
    grantsOf,
    granted,
    folderAccess,
    documentAccess,
    folderMembership,
    byAccessType,
    cap,
    /** A user's access to a document (null: none); `d` has id, folderId, accessType and disabled (a boolean). */
    onDocument(userId, d, organizationDisabled) {
      let access = granted(userId, 'document', d.id);
      if (d.folderId !== null) access = better(access, folderMembership(userId, d.folderId));
      return cap(better(access, byAccessType(userId, documentAccess(d))), organizationDisabled || d.disabled);
    },
    /** The access fields of a user's grants on a document (their own and their groups'), JSON arrays in the column. */
    fieldsOn: (userId, documentId) => grantsOf(userId, 'document', documentId).flatMap((g) => (g.accessFields === null ? [] : JSON.parse(g.accessFields))),
  };
}

/** A newest-first (by default) keyset page's size, cursor, comparison and direction. */
function keysetOf(data) {
  const desc = (data.order ?? 'desc') === 'desc';
  return { pageSize: data.pageSize ?? DEFAULT_PAGE_SIZE, after: decodeToken(data.pageToken), cmp: desc ? '<' : '>', dir: desc ? 'DESC' : 'ASC' };
}

const handlers = {
  async '/v2/activities/get'(app, data) {
    await organizationOrThrow(app.apiKeyId, data.organizationId);
    const { pageSize, after, cmp, dir } = keysetOf(data);
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
    const rules = accessRules(data.organizationId, folderRows, { memberships: [], grants: [] });
    const page = pageOf(rows, pageSize, (row) => [Number(row.createdAt), row.id]);
    page.items = page.items.map((row) => ({
      id: row.id,
      documentName: row.name,
      disabled: Boolean(row.disabled),
      accessType: rules.documentAccess(row),
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
    const [[organization], folderRows, documentRows, access] = await Promise.all([
      db.query('SELECT "disabled" FROM "Organization" WHERE "apiKeyId" = ? AND "id" = ?', [app.apiKeyId, organizationId]),
      db.query('SELECT "id", "parentId", "accessType", "inheritAccessFromParent" FROM "Folder" WHERE "apiKeyId" = ? AND "organizationId" = ?', [app.apiKeyId, organizationId]),
      documentIds.length === 0
        ? []
        : db.query(`SELECT "id", "folderId", "accessType", "disabled" FROM "Document" WHERE "apiKeyId" = ? AND "organizationId" = ? AND "id" IN (${list(documentIds.length)})`, [
            app.apiKeyId,
            organizationId,
            ...documentIds,
          ]),
      grantsOfUsers(db.query, app.apiKeyId, organizationId, userIds),
    ]);
    const rules = accessRules(organizationId, folderRows, access);
    const documents = new Map(documentRows.map((d) => [d.id, { ...d, disabled: Boolean(d.disabled) }]));
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
        maps.organization[organizationId] = entry(rules.cap(rules.granted(userId, 'organization', organizationId), orgDisabled), `organization ${organizationId}`, userId);
      }
      for (const folderId of folderIds) {
        if (!organization || !rules.folders.has(folderId)) {
          anyMissing = true;
          maps.folders[folderId] = missing(`folder ${folderId}`);
          continue;
        }
        const accessType = rules.folderAccess(folderId);
        const access = rules.cap(rules.better(rules.folderMembership(userId, folderId), rules.byAccessType(userId, accessType)), orgDisabled);
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
        maps.documents[documentId] = entry(rules.onDocument(userId, d, orgDisabled), `document ${documentId}`, userId, rules.documentAccess(d));
        for (const f of rules.fieldsOn(userId, documentId)) fields.add(f);
      }
      if (organization && fields.size > 0) maps.context = { accessFields: [...fields].sort() };
      result[userId] = maps;
    }
    if (anyMissing) throw new Refused(404, 'NOT_FOUND', 'one or more of the requested resources do not exist; see details');
    return ok('Permissions retrieved successfully.', result);
  },
  async '/v2/notifications/get'(app, data) {
    const { organizationId, userId } = data;
    if (userId === undefined || data.documentId !== undefined || data.locationId !== undefined || data.notificationIds !== undefined) {
      throw new Refused(501, 'UNIMPLEMENTED', "the floor lists one user's notifications, without filters");
    }
    const [toggles] = await Promise.all([
      db.query('SELECT "name", "enabled" FROM "FeatureToggle" WHERE "apiKeyId" = ? AND "name" IN (?, ?)', [app.apiKeyId, 'advancedQueries', 'notifications']),
      organizationOrThrow(app.apiKeyId, organizationId),
    ]);
    const off = toggles.find((t) => !t.enabled);
    if (off) throw new Refused(400, 'FAILED_PRECONDITION', `${off.name} is disabled`);
    const { pageSize, after, cmp, dir } = keysetOf(data);
    // The user's recipient rows in (timestamp, id) order, joined to their notifications. The bare `<=` / `>=`
    // lets the database seek to the cursor in its index; the OR sorts out that one instant (as keysetAfter).
    const rows = await db.query(
      `SELECT n."id", n."organizationId", n."documentId", n."locationId", n."source", n."sourceData", n."actionUser", n."headlineTemplate", n."headlineData", n."bodyMessage", n."timestamp"
       FROM "NotificationRecipient" r JOIN "Notification" n ON n."apiKeyId" = r."apiKeyId" AND n."id" = r."notificationId"
       WHERE r."apiKeyId" = ? AND r."organizationId" = ? AND r."userId" = ?
       ${after ? `AND r."timestamp" ${cmp}= ? AND (r."timestamp" ${cmp} ? OR r."notificationId" ${cmp} ?)` : ''}
       ORDER BY r."timestamp" ${dir}, r."notificationId" ${dir} LIMIT ?`,
      [app.apiKeyId, organizationId, userId, ...(after ? [after[0], after[0], after[1]] : []), pageSize + 1],
    );
    const page = pageOf(rows, pageSize, (row) => [Number(row.timestamp), row.id]);
    const ids = page.items.map((row) => row.id);
    // Every recipient of these notifications (the notifyUsers maps and read state), and the reader's own row.
    const [recipients, [user]] = await Promise.all([
      ids.length === 0
        ? []
        : db.query(`SELECT "notificationId", "userId", "userKey", "readAt" FROM "NotificationRecipient" WHERE "apiKeyId" = ? AND "notificationId" IN (${list(ids.length)})`, [
            app.apiKeyId,
            ...ids,
          ]),
      db.query('SELECT "name", "email" FROM "User" WHERE "apiKeyId" = ? AND "id" = ?', [app.apiKeyId, userId]),
    ]);
    const recipientUser = { userId, ...(user?.name ? { name: user.name } : {}), ...(user?.email ? { email: user.email } : {}) };
    const maps = new Map(ids.map((id) => [id, { notifyUsers: Object.create(null), notifyUsersByUserId: Object.create(null), readByUserIds: Object.create(null) }]));
    for (const r of recipients) {
      const m = maps.get(r.notificationId);
      m.notifyUsers[r.userKey] = true;
      m.notifyUsersByUserId[r.userId] = true;
      if (r.readAt !== null) m.readByUserIds[r.userId] = true;
    }
    page.items = page.items.map((row) => {
      const sourceData = JSON.parse(row.sourceData);
      return {
        id: row.id,
        notificationSource: row.source,
        // A comment notification names the thread's document as it is now (a migration does not rewrite the snapshot).
        notificationSourceData: row.source === 'comment' && row.documentId !== null ? { ...sourceData, documentId: row.documentId } : sourceData,
        ...(row.actionUser !== null ? { actionUser: JSON.parse(row.actionUser) } : {}),
        ...(row.bodyMessage !== null ? { displayBodyMessage: row.bodyMessage } : {}),
        displayHeadlineMessageTemplate: row.headlineTemplate,
        displayHeadlineMessageTemplateData: { ...JSON.parse(row.headlineData), recipientUser },
        metadata: { apiKey: app.apiKey, organizationId: row.organizationId, ...(row.documentId !== null ? { documentId: row.documentId } : {}) },
        ...(row.locationId !== null ? { locationId: row.locationId } : {}),
        ...maps.get(row.id),
        timestamp: Number(row.timestamp),
      };
    });
    return paged('Notifications retrieved successfully.', page);
  },

  async '/v2/crdt/get'(app, data) {
    const { organizationId, documentId, editorId } = data;
    const key = [app.apiKeyId, organizationId, documentId, editorId];
    const [, [document], [row]] = await Promise.all([
      organizationOrThrow(app.apiKeyId, organizationId),
      db.query('SELECT 1 AS "one" FROM "Document" WHERE "apiKeyId" = ? AND "organizationId" = ? AND "id" = ?', [app.apiKeyId, organizationId, documentId]),
      db.query('SELECT "state", "restBase", "type", "contentKey", "updatedAt" FROM "CrdtDocument" WHERE "apiKeyId" = ? AND "organizationId" = ? AND "documentId" = ? AND "editorId" = ?', key),
    ]);
    if (!document) throw new Refused(404, 'NOT_FOUND', `document ${documentId} does not exist in organization ${organizationId}`);
    if (!row?.type || !row.contentKey) throw new Refused(404, 'NOT_FOUND', `editor ${editorId} of document ${documentId} has no CRDT data`);
    if (row.type !== 'text') throw new Refused(501, 'UNIMPLEMENTED', 'the floor reads text only');
    // The stored update into a Y.Doc for the text, and the state encoded from it (the bytes the server answers).
    const doc = new Y.Doc();
    Y.applyUpdate(doc, row.state);
    const state = Buffer.from(Y.encodeStateAsUpdate(doc));
    // What the caller read is the REST base an Update diffs against: written when it changed, not on every read.
    if (row.restBase === null || !state.equals(row.restBase)) {
      await db.query('UPDATE "CrdtDocument" SET "restBase" = ? WHERE "apiKeyId" = ? AND "organizationId" = ? AND "documentId" = ? AND "editorId" = ?', [state, ...key]);
    }
    return ok('CRDT data retrieved.', {
      data: doc.share.has(row.contentKey) ? doc.getText(row.contentKey).toString() : '',
      type: row.type,
      contentKey: row.contentKey,
      lastUpdated: Number(row.updatedAt),
      state: state.toString('base64'),
    });
  },

  async '/v2/commentannotations/add'(app, data) {
    const { organizationId, documentId } = data;
    const where = [app.apiKeyId, organizationId];
    // The server also writes activity records, emails and webhook messages when these are on; the floor writes none of them.
    const settings = await db.query('SELECT "kind", "value" FROM "Setting" WHERE "apiKeyId" = ? AND "kind" IN (?, ?, ?)', [app.apiKeyId, 'activity', 'email', 'advancedWebhooks']);
    for (const { kind, value } of settings) {
      const stored = JSON.parse(value);
      if (kind === 'email' ? stored.useEmailService && stored.triggers?.['comment_annotation.add'] === true : stored.isEnabled) {
        throw new Refused(501, 'UNIMPLEMENTED', `the floor writes no ${kind} rows: turn ${kind} off`);
      }
    }
    const annotations = data.commentAnnotations;
    // The users a notification involves: the assignee and everyone mentioned (the first reference of each wins).
    const involvedIds = [...new Set(annotations.flatMap((a) => [...(a.assignedTo ? [a.assignedTo.userId] : []), ...a.commentData.flatMap((c) => (c.taggedUserContacts ?? []).map((u) => u.userId))]))];

    return db.transaction(async (query) => {
      const now = Date.now();
      // A client app creates the organization and document by commenting; the document is held
      // (FOR SHARE on PostgreSQL) so a migration waits for this write.
      let [organization] = await query('SELECT "disabled" FROM "Organization" WHERE "apiKeyId" = ? AND "id" = ?', where);
      if (!organization) {
        await query('INSERT INTO "Organization" ("apiKeyId", "id", "name", "disabled", "createdAt", "updatedAt") VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING', [...where, organizationId, false, now, now]);
        [organization] = await query('SELECT "disabled" FROM "Organization" WHERE "apiKeyId" = ? AND "id" = ?', where);
      }
      const documentSql = `SELECT "id", "folderId", "accessType", "disabled" FROM "Document" WHERE "apiKeyId" = ? AND "organizationId" = ? AND "id" = ?${db.postgres ? ' FOR SHARE' : ''}`;
      let [document] = await query(documentSql, [...where, documentId]);
      if (!document) {
        await query(
          'INSERT INTO "Document" ("apiKeyId", "organizationId", "id", "name", "folderId", "accessType", "disabled", "createdAt", "updatedAt") VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
          [...where, documentId, documentId, 'organizationPrivate', false, now, now],
        );
        [document] = await query(documentSql, [...where, documentId]);
      }
      document = { ...document, disabled: Boolean(document.disabled) };

      // Inbox configs: every document-level one (its ALL users are candidates), and the organization defaults that are ALL or of an involved user.
      const documentConfigs = await query('SELECT "userId", "inbox" FROM "NotificationConfig" WHERE "apiKeyId" = ? AND "organizationId" = ? AND "documentId" = ?', [...where, documentId]);
      const defaultConfigs = await query(
        `SELECT "userId", "inbox" FROM "NotificationDefaultConfig" WHERE "apiKeyId" = ? AND "organizationId" = ? AND ("inbox" = 'ALL'${involvedIds.length > 0 ? ` OR "userId" IN (${list(involvedIds.length)})` : ''})`,
        [...where, ...involvedIds],
      );
      const onDocument = new Map(documentConfigs.map((c) => [c.userId, c.inbox]));
      const byDefault = new Map(defaultConfigs.map((c) => [c.userId, c.inbox]));
      const optedIn = [
        ...documentConfigs.filter((c) => c.inbox === 'ALL').map((c) => c.userId),
        ...defaultConfigs.filter((c) => c.inbox === 'ALL' && onDocument.get(c.userId) == null).map((c) => c.userId),
      ];
      const inboxOf = (userId) => onDocument.get(userId) ?? byDefault.get(userId) ?? 'MINE';

      // Names and emails of everyone referenced and of every candidate (for the recipients' notifyUsers key), in one query.
      const refs = annotations.flatMap((a) => [a.from, ...(a.assignedTo ? [a.assignedTo] : []), ...a.commentData.flatMap((c) => [...(c.from ? [c.from] : []), ...(c.taggedUserContacts ?? [])])]);
      const userIds = [...new Set([...refs.map((u) => u.userId), ...optedIn])];
      const users = new Map((await query(`SELECT "id", "name", "email" FROM "User" WHERE "apiKeyId" = ? AND "id" IN (${list(userIds.length)})`, [app.apiKeyId, ...userIds])).map((u) => [u.id, u]));
      // A reference as given, its missing name and email filled from the user's row.
      const user = (ref) => {
        const row = users.get(ref.userId);
        const name = ref.name ?? (row?.name || undefined);
        const email = ref.email ?? (row?.email || undefined);
        return { userId: ref.userId, ...(name !== undefined ? { name } : {}), ...(email !== undefined ? { email } : {}) };
      };

      const at = Date.now();
      const threads = [];
      const eventIds = [];
      const rows = { threads: [], comments: [], mentions: [], marks: [], events: [], notifications: [], recipients: [] };
      for (const a of annotations) {
        const id = a.annotationId ?? nextId('ann');
        const from = user(a.from);
        const assignedTo = a.assignedTo ? user(a.assignedTo) : null;
        const context = a.context ?? null;
        // A context with a scalar entry hides the thread from readers without the matching access fields.
        const restricted = context !== null && Object.values(context).some(scalar);
        const comments = a.commentData.map((c) => ({
          commentId: c.commentId ?? nextId('cmt'),
          commentText: c.commentText,
          ...(c.commentHtml !== undefined ? { commentHtml: c.commentHtml } : {}),
          from: user(c.from ?? a.from),
          taggedUserContacts: (c.taggedUserContacts ?? []).map(user),
          createdAt: at,
          lastUpdated: at,
          reactions: [],
        }));
        const thread = {
          annotationId: id,
          organizationId,
          documentId,
          ...(a.location ? { location: a.location } : {}),
          status: a.status ?? 'open',
          priority: a.priority ?? null,
          assignedTo,
          customList: a.customList ?? [],
          context,
          from,
          comments,
          createdAt: at,
          lastUpdated: at,
        };
        threads.push(thread);
        const locationId = a.location?.locationId ?? null;
        rows.threads.push([...where, documentId, id, locationId, a.location ? JSON.stringify(a.location) : null, thread.status, thread.priority, assignedTo?.userId ?? null,
          assignedTo ? JSON.stringify(assignedTo) : null, JSON.stringify(thread.customList), context === null ? null : JSON.stringify(context), restricted, from.userId, JSON.stringify(from), at, at]);
        for (const c of comments) {
          rows.comments.push([...where, documentId, id, c.commentId, nextId('cmo'), c.commentText, c.commentHtml ?? null, c.from.userId, JSON.stringify(c.from), JSON.stringify(c.taggedUserContacts), at, at]);
          for (const userId of new Set(c.taggedUserContacts.map((u) => u.userId))) rows.mentions.push([...where, documentId, id, c.commentId, userId]);
        }
        // Whoever writes in a thread has read it.
        for (const userId of new Set([from.userId, ...comments.map((c) => c.from.userId)])) rows.marks.push([...where, documentId, id, userId, at]);
        // The thread's event (its first comments are part of it), the outbox row webhooks and projections read.
        const eventId = nextId('evt');
        rows.events.push([eventId, app.apiKeyId, 'comment_annotation.add', organizationId, documentId, from.userId, JSON.stringify({ actor: from, payload: { annotation: thread } }), at]);
        eventIds.push(eventId);
      }

      // The notification audience: users whose inbox is ALL, and the involved unless theirs is NONE; never the
      // actor or the anonymous user; only readers of the document whose access fields match the thread's context.
      const audiences = threads.map((thread) => {
        const involved = new Map();
        for (const u of [thread.assignedTo, ...thread.comments.flatMap((c) => c.taggedUserContacts)]) if (u && !involved.has(u.userId)) involved.set(u.userId, u);
        const candidates = new Set([...optedIn, ...[...involved.keys()].filter((userId) => inboxOf(userId) !== 'NONE')]);
        candidates.delete(thread.from.userId);
        candidates.delete('anonymous');
        return { involved, candidates: [...candidates] };
      });
      const candidates = [...new Set(audiences.flatMap((a) => a.candidates))];
      const folderRows =
        document.folderId === null || candidates.length === 0
          ? []
          : await query('SELECT "id", "parentId", "accessType", "inheritAccessFromParent" FROM "Folder" WHERE "apiKeyId" = ? AND "organizationId" = ?', where);
      const rules = accessRules(organizationId, folderRows, await grantsOfUsers(query, app.apiKeyId, organizationId, candidates));
      const readers = new Set(candidates.filter((userId) => rules.onDocument(userId, document, Boolean(organization.disabled)) !== null));
      const visible = (context, userId) => {
        const held = new Set(rules.fieldsOn(userId, documentId));
        return Object.entries(context ?? {}).every(([k, v]) => !scalar(v) || held.has(`${k}:${String(v)}`));
      };
      for (const [i, thread] of threads.entries()) {
        const { involved, candidates: theirs } = audiences[i];
        const reached = theirs.filter((userId) => readers.has(userId) && visible(thread.context, userId));
        if (reached.length === 0) continue;
        const id = nextId('ntf');
        const actionUser = thread.from;
        const first = thread.comments[0];
        rows.notifications.push([app.apiKeyId, id, organizationId, documentId, thread.location?.locationId ?? null, 'comment', JSON.stringify(thread), eventIds[i], actionUser.userId,
          JSON.stringify(actionUser), '{actionUser} started a comment thread', JSON.stringify({ actionType: 'comment_annotation.add', actionUser }), first ? first.commentText : null, at]);
        // notifyUsers' key: the user row's email, else the email the comment gave, else the ID.
        for (const userId of reached) {
          rows.recipients.push([app.apiKeyId, id, userId, users.get(userId)?.email || involved.get(userId)?.email || userId, organizationId, documentId, thread.location?.locationId ?? null, at]);
        }
      }

      // One INSERT per table, children after their parents.
      const insert = async (table, columns, values) => {
        if (values.length === 0) return;
        const tuple = `(${list(columns.length)})`;
        await query(`INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${values.map(() => tuple).join(', ')}`, values.flat());
      };
      const placed = ['apiKeyId', 'organizationId', 'documentId'];
      await insert('CommentAnnotation', [...placed, 'id', 'locationId', 'location', 'status', 'priority', 'assignedToUserId', 'assignedTo', 'customList', 'context', 'restricted', 'fromUserId', 'fromUser', 'createdAt', 'lastUpdated'], rows.threads);
      await insert('Comment', [...placed, 'annotationId', 'id', 'orderKey', 'text', 'html', 'fromUserId', 'fromUser', 'taggedUsers', 'createdAt', 'lastUpdated'], rows.comments);
      await insert('CommentMention', [...placed, 'annotationId', 'commentId', 'userId'], rows.mentions);
      await insert('CommentReadMark', [...placed, 'annotationId', 'userId', 'readAt'], rows.marks);
      await insert('DomainEvent', ['id', 'apiKeyId', 'type', 'organizationId', 'documentId', 'actorUserId', 'body', 'occurredAt'], rows.events);
      await insert('Notification', ['apiKeyId', 'id', 'organizationId', 'documentId', 'locationId', 'source', 'sourceData', 'eventId', 'actionUserId', 'actionUser', 'headlineTemplate', 'headlineData', 'bodyMessage', 'timestamp'], rows.notifications);
      await insert('NotificationRecipient', ['apiKeyId', 'notificationId', 'userId', 'userKey', 'organizationId', 'documentId', 'locationId', 'timestamp'], rows.recipients);
      return ok('Annotations added successfully.', threads);
    });
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
