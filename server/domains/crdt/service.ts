import { randomBytes } from 'node:crypto';
import * as Y from 'yjs';
import type { EditorKey } from '../../../contract/crdt/document-name.js';
import type { DataOf } from '../../../contract/common/envelope.js';
import { DEFAULT_CONTENT_KEY, type addCrdtData, type deleteCrdtData, type getCrdtData, type TCrdtData, type TCrdtType, type updateCrdtData } from '../../../contract/crdt/crdt-data.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import { alreadyExists, invalidArgument, notFound } from '../../lib/app-error.js';
import type { Clock } from '../../lib/clock.js';
import type { LiveDocuments } from './live-documents.js';
import type { CrdtRow } from './repo.js';
import { readIsStored, type CrdtStore } from './store.js';
import { checkValue, clearValue, CrdtValueError, readValue, writeValue } from './values/index.js';
import type { Caller } from '../../platform/caller.js';

/** A codec refusal is the caller's mistake. */
function asInvalid<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof CrdtValueError) throw invalidArgument(error.message);
    throw error;
  }
}

/**
 * A scratch copy, never synced: it needs no globally unique guid, and Yjs's
 * default (a UUID drawn from 31 calls of the crypto random source) was 5% of
 * Get CRDT Data's CPU.
 */
function docFrom(...updates: Uint8Array[]): Y.Doc {
  const doc = new Y.Doc({ guid: 'rest-copy' });
  for (const update of updates) Y.applyUpdate(doc, update);
  return doc;
}

/**
 * One Yjs client ID for the REST changes of an editor's row: a fresh ID per
 * change would add an entry to the document's state vector with each change,
 * for ever (about 31 bytes and some work on every later change). Drawn at
 * random with the row's first REST change and kept with the row, never
 * derived from the editor's name: a row deleted and created again under the
 * same name gets a new ID, since clients may still hold the old row's changes.
 */
function restClientIdOf(row: CrdtRow | null): number {
  return row?.restClientId != null ? Number(row.restClientId) : randomBytes(4).readUInt32BE(0);
}

/**
 * The copy a REST change is computed on, authored by the editor's REST client
 * ID when that is safe: when the copy holds every change that ID made so far
 * (per the stored state, where each REST change lands first), so the new
 * change continues that ID's clock instead of reusing it. Otherwise a fresh ID.
 */
function restDoc(stored: Uint8Array, id: number, ...updates: Uint8Array[]): Y.Doc {
  const doc = docFrom(...updates);
  const storedClock = Y.decodeStateVector(Y.encodeStateVectorFromUpdate(stored)).get(id) ?? 0;
  if (Y.getState(doc.store, id) === storedClock) doc.clientID = id;
  return doc;
}

/** Runs `change` on `doc` and returns the update it made (empty-ish when nothing changed) and whether anything did. */
function changeOf(doc: Y.Doc, change: (doc: Y.Doc) => boolean): { changed: boolean; update: Uint8Array } {
  const before = Y.encodeStateVector(doc);
  const changed = asInvalid(() => change(doc));
  return { changed, update: Y.encodeStateAsUpdate(doc, before) };
}

const describe = (key: EditorKey) => `editor ${key.editorId} of document ${key.documentId}`;

/**
 * Add / Update / Get / Delete CRDT Data on the live Y.Doc of an editor.
 *
 * A write computes its change on a copy, stores it (state, the REST base,
 * type and content key, and the `crdt.update_data` event in one unit of
 * work, the row locked so processes take turns), and only after the commit
 * applies it to the live document, from where connected clients (on every
 * process) receive it. A write that fails changes nothing anywhere, so
 * retrying it is safe.
 *
 * Update diffs the requested value against the REST base: the state as the
 * REST side last read (Get) or wrote it. What editors typed since is not in
 * that diff, so it is kept, whether it was saved already or not.
 */
export function createCrdtService(deps: { store: CrdtStore; live: LiveDocuments; uow: UnitOfWork; clock: Clock }) {
  const { store, uow } = deps;
  const documents = deps.live;
  const existing = (app: Caller, key: EditorKey) => store.requireDocument(app.apiKeyId, key);
  const lockedRow = (app: Caller, key: EditorKey, create = false) => store.lockedRow(app.apiKeyId, key, create);

  function withData(row: CrdtRow | null, key: EditorKey): CrdtRow & { type: TCrdtType; contentKey: string } {
    if (!row?.type || !row.contentKey) throw notFound(`${describe(key)} has no CRDT data`);
    return row as CrdtRow & { type: TCrdtType; contentKey: string };
  }

  const keyOf = (input: { organizationId: string; documentId: string; editorId: string }): EditorKey => ({
    organizationId: input.organizationId,
    documentId: input.documentId,
    editorId: input.editorId,
  });

  return {
    async addCrdtData(app: Caller, input: DataOf<typeof addCrdtData>): Promise<void> {
      const key = keyOf(input);
      const contentKey = input.contentKey ?? DEFAULT_CONTENT_KEY;
      asInvalid(() => checkValue(input.type, input.data));
      await existing(app, key);
      await documents.withDocument(app.apiKeyId, key, (document, live) =>
        uow.run(async () => {
          const row = await lockedRow(app, key, true);
          if (row?.type) throw alreadyExists(`CRDT data of ${describe(key)} already exists`);
          // The content as it is now, unsaved client edits included (for a document clients created): Add makes it equal `data`.
          const stored = row?.state ?? Y.encodeStateAsUpdate(new Y.Doc());
          const restClientId = restClientIdOf(row);
          const doc = restDoc(stored, restClientId, stored, Y.encodeStateAsUpdate(document));
          const { update } = changeOf(doc, (d) => writeValue(d, input.type, contentKey, input.data));
          const state = Y.encodeStateAsUpdate(doc);
          await store.saveRest(app.apiKeyId, key, { state, restBase: state, restClientId, meta: { type: input.type, contentKey } });
          live.applyAfterCommit(update);
        }),
      );
    },

    async updateCrdtData(app: Caller, input: DataOf<typeof updateCrdtData>): Promise<void> {
      const key = keyOf(input);
      const contentKey = input.contentKey ?? DEFAULT_CONTENT_KEY;
      asInvalid(() => checkValue(input.type, input.data));
      await existing(app, key);
      await documents.withDocument(app.apiKeyId, key, (_document, live) =>
        uow.run(async () => {
          const row = withData(await lockedRow(app, key), key);
          if (row.type !== input.type || row.contentKey !== contentKey) {
            throw invalidArgument(
              `CRDT data of ${describe(key)} is a ${row.type} under contentKey "${row.contentKey}"; Update CRDT Data keeps both (delete the data to store another type)`,
            );
          }
          const restClientId = restClientIdOf(row);
          const base = restDoc(row.state, restClientId, row.restBase ?? row.state);
          const { changed, update } = changeOf(base, (d) => writeValue(d, input.type, contentKey, input.data));
          if (!changed) return;
          await store.saveRest(app.apiKeyId, key, { state: Y.mergeUpdates([row.state, update]), restBase: Y.encodeStateAsUpdate(base), restClientId });
          live.applyAfterCommit(update);
        }),
      );
    },

    async getCrdtData(app: Caller, input: DataOf<typeof getCrdtData>): Promise<TCrdtData> {
      const key = keyOf(input);
      await existing(app, key);
      const found = withData(await store.find(app.apiKeyId, key), key);
      const answer = (row: typeof found, state: Uint8Array, at: bigint): TCrdtData => ({
        data: asInvalid(() => readValue(docFrom(state), row.type, row.contentKey)),
        type: row.type,
        contentKey: row.contentKey,
        lastUpdated: Number(at),
        state: Buffer.from(state).toString('base64'),
      });
      return documents.withDocument(app.apiKeyId, key, async (document, live) => {
        // Read again unchanged (the row's REST base is this state, from the same save): nothing to write, so no
        // transaction and no lock; a read of a document that changed since takes the path below.
        const current = Y.encodeStateAsUpdate(document);
        if (!live.unsaved() && readIsStored(found, { state: current, at: found.updatedAt })) return answer(found, current, found.updatedAt);
        return uow.run(async () => {
          const row = withData(await lockedRow(app, key), key);
          // What the caller reads becomes the REST base, in the same step as it is read: an Update computed from it changes exactly what the caller changed.
          const state = Y.encodeStateAsUpdate(document);
          const at = live.unsaved() ? BigInt(deps.clock.nowMs()) : row.updatedAt;
          await store.saveRead(app.apiKeyId, key, row, { state, at });
          return answer(row, state, at);
        });
      });
    },

    async deleteCrdtData(app: Caller, input: DataOf<typeof deleteCrdtData>): Promise<void> {
      const key = keyOf(input);
      await existing(app, key);
      await documents.withDocument(app.apiKeyId, key, (document, live) =>
        uow.run(async () => {
          const row = withData(await lockedRow(app, key), key);
          const restClientId = restClientIdOf(row);
          const doc = restDoc(row.state, restClientId, row.state, Y.encodeStateAsUpdate(document));
          const { update } = changeOf(doc, (d) => {
            clearValue(d, row.type, row.contentKey);
            return true;
          });
          await store.saveRest(app.apiKeyId, key, { state: Y.encodeStateAsUpdate(doc), restBase: null, restClientId, meta: { type: null, contentKey: null } });
          live.applyAfterCommit(update);
        }),
      );
    },
  };
}

export type CrdtService = ReturnType<typeof createCrdtService>;
