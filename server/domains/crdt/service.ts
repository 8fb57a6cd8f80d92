import * as Y from 'yjs';
import { DEFAULT_CONTENT_KEY, type TCrdtData, type TCrdtType, type TCrdtWriteData } from '../../../contract/crdt/crdt-data.js';
import { createdOnce } from '../../db/errors.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import { alreadyExists, invalidArgument, notFound } from '../../lib/app-error.js';
import type { Clock } from '../../lib/clock.js';
import type { EditorKey } from '../../../contract/crdt/document-name.js';
import type { RealtimeHub } from '../../realtime/hub.js';
import { createAccessLookups } from '../access/lookups.js';
import type { AccessRepo } from '../access/repo.js';
import type { CrdtRepo } from './repo.js';
import { checkValue, clearValue, CrdtValueError, readValue, writeValue } from './values/index.js';

interface Caller {
  apiKeyId: string;
}

/** The origin of changes the REST operations make (no user: Yjs and the save record none). */
const REST_ORIGIN = Symbol('rest');

/** A codec refusal is the caller's mistake. */
function asInvalid<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof CrdtValueError) throw invalidArgument(error.message);
    throw error;
  }
}

const describe = (key: EditorKey) => `editor ${key.editorId} of document ${key.documentId}`;

/**
 * Add / Update / Get / Delete CRDT Data. Every operation acts on the live
 * Y.Doc of the editor (hub.withDocument), so connected clients receive REST
 * changes as Yjs operations, and REST reads include their unsaved edits.
 * The stored state and the data's type and content key change in one unit
 * of work with the `crdt.update_data` event.
 */
export function createCrdtService(deps: { repo: CrdtRepo; accessRepo: AccessRepo; uow: UnitOfWork; hub: RealtimeHub; clock: Clock }) {
  const { repo, uow, hub } = deps;
  const find = createAccessLookups(deps.accessRepo);

  /** Organization and document must exist before a document is loaded for them. */
  async function existing(app: Caller, key: EditorKey) {
    await find.organization(app.apiKeyId, key.organizationId);
    const document = await deps.accessRepo.findDocument(app.apiKeyId, key.organizationId, key.documentId);
    if (!document) throw notFound(`document ${key.documentId} does not exist in organization ${key.organizationId}`);
  }

  const keyOf = (input: { organizationId: string; documentId: string; editorId: string }): EditorKey => ({
    organizationId: input.organizationId,
    documentId: input.documentId,
    editorId: input.editorId,
  });

  return {
    async addCrdtData(app: Caller, input: TCrdtWriteData): Promise<void> {
      const key = keyOf(input);
      const contentKey = input.contentKey ?? DEFAULT_CONTENT_KEY;
      asInvalid(() => checkValue(input.type, input.data));
      await existing(app, key);
      await hub.withDocument(app.apiKeyId, key, (document, save) =>
        uow.run(async () => {
          await find.heldDocuments(app.apiKeyId, key.organizationId, [key.documentId]);
          const claimed = await createdOnce(`CRDT data of ${describe(key)}`, () =>
            repo.claimType(app.apiKeyId, key, { type: input.type, contentKey, state: Y.encodeStateAsUpdate(document), at: BigInt(deps.clock.nowMs()) }),
          );
          if (!claimed) throw alreadyExists(`CRDT data of ${describe(key)} already exists`);
          asInvalid(() => writeValue(document, input.type, contentKey, input.data, REST_ORIGIN));
          await save({ type: input.type, contentKey });
        }),
      );
    },

    async updateCrdtData(app: Caller, input: TCrdtWriteData): Promise<void> {
      const key = keyOf(input);
      const contentKey = input.contentKey ?? DEFAULT_CONTENT_KEY;
      asInvalid(() => checkValue(input.type, input.data));
      await existing(app, key);
      await hub.withDocument(app.apiKeyId, key, (document, save) =>
        uow.run(async () => {
          await find.heldDocuments(app.apiKeyId, key.organizationId, [key.documentId]);
          const row = await repo.find(app.apiKeyId, key);
          if (!row?.type || !row.contentKey) throw notFound(`${describe(key)} has no CRDT data`);
          if (row.type !== input.type || row.contentKey !== contentKey) {
            throw invalidArgument(
              `CRDT data of ${describe(key)} is a ${row.type} under contentKey "${row.contentKey}"; Update CRDT Data keeps both (delete the data to store another type)`,
            );
          }
          // The difference from the stored value, as operations on the stored state's items: applied to
          // the live document they merge with what clients typed since (saved or not), instead of undoing it.
          const base = new Y.Doc();
          Y.applyUpdate(base, row.state);
          const before = Y.encodeStateVector(base);
          if (!asInvalid(() => writeValue(base, input.type, contentKey, input.data))) return;
          Y.applyUpdate(document, Y.encodeStateAsUpdate(base, before), REST_ORIGIN);
          await save();
        }),
      );
    },

    async getCrdtData(app: Caller, input: { organizationId: string; documentId: string; editorId: string }): Promise<TCrdtData> {
      const key = keyOf(input);
      await existing(app, key);
      const row = await repo.find(app.apiKeyId, key);
      if (!row?.type || !row.contentKey) throw notFound(`${describe(key)} has no CRDT data`);
      const type = row.type as TCrdtType;
      const contentKey = row.contentKey;
      return hub.withDocument(app.apiKeyId, key, async (document, _save, flush) => {
        // What a caller reads is stored first: an Update computed from it then differs from the stored value by exactly the caller's change.
        await flush();
        const saved = await repo.find(app.apiKeyId, key);
        return {
          data: asInvalid(() => readValue(document, type, contentKey)),
          type,
          contentKey,
          lastUpdated: Number(saved?.updatedAt ?? row.updatedAt),
          state: Buffer.from(Y.encodeStateAsUpdate(document)).toString('base64'),
        };
      });
    },

    async deleteCrdtData(app: Caller, input: { organizationId: string; documentId: string; editorId: string }): Promise<void> {
      const key = keyOf(input);
      await existing(app, key);
      await hub.withDocument(app.apiKeyId, key, (document, save) =>
        uow.run(async () => {
          await find.heldDocuments(app.apiKeyId, key.organizationId, [key.documentId]);
          const row = await repo.find(app.apiKeyId, key);
          if (!row?.type || !row.contentKey) throw notFound(`${describe(key)} has no CRDT data`);
          asInvalid(() => clearValue(document, row.type as TCrdtType, row.contentKey!, REST_ORIGIN));
          await save({ type: null, contentKey: null });
        }),
      );
    },
  };
}

export type CrdtService = ReturnType<typeof createCrdtService>;
