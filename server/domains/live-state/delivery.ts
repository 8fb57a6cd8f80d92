import type { Logger } from 'pino';
import type { TLiveStateEntry } from '../../../contract/live-state/schemas.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Fanout } from '../../platform/fanout.js';
import type { DocumentKey } from '../../platform/owned-data.js';
import type { LiveStateLiveDocuments } from './live-documents.js';
import type { LiveStateRecord, LiveStateRepo } from './repo.js';

/** What a client receives: the text of one Hocuspocus stateless message. */
export function statelessPayload(entry: TLiveStateEntry): string {
  return JSON.stringify({ type: 'livestate', liveStateDataId: entry.liveStateDataId, data: entry.data, lastUpdated: entry.lastUpdated });
}

export function toEntry(row: LiveStateRecord): TLiveStateEntry {
  return { liveStateDataId: row.liveStateDataId, data: row.data, lastUpdated: Number(row.updatedAt) };
}

interface LiveStateMessage extends DocumentKey {
  kind: 'livestate';
  entry: TLiveStateEntry;
}

const isLiveStateMessage = (message: unknown): message is LiveStateMessage => {
  const m = message as Partial<LiveStateMessage>;
  return m.kind === 'livestate' && typeof m.apiKeyId === 'string' && typeof m.organizationId === 'string' && typeof m.documentId === 'string' && typeof m.entry === 'object';
};

/**
 * Live state on the WebSocket side: a broadcast reaches every process through
 * the fan-out, and each sends it on every connection of every loaded editor
 * document of that document (straight to the connections: the document's own
 * broadcastStateless would also go through the Redis extension, and clients
 * on other processes would get it twice). A client whose connection is set up
 * gets every stored value of its document the same way.
 */
export function createLiveStateDelivery(deps: { live: LiveStateLiveDocuments; fanout: Fanout; repo: LiveStateRepo; uow: UnitOfWork; log: Logger }) {
  const { live, log } = deps;

  deps.fanout.subscribe((message) => {
    if (!isLiveStateMessage(message)) return;
    const payload = statelessPayload(message.entry);
    for (const { document } of live.documentsOf(message.apiKeyId, message.organizationId, message.documentId)) {
      for (const connection of document.getConnections()) connection.sendStateless(payload);
    }
  });

  live.onConnected((context, connection) => {
    const ref = { apiKeyId: context.apiKeyId, organizationId: context.key.organizationId, documentId: context.key.documentId };
    void deps.repo.list(ref).then(
      (rows) => rows.forEach((row) => connection.sendStateless(statelessPayload(toEntry(row)))),
      (error: unknown) => log.error({ err: error }, 'sending stored live state to a new connection failed'),
    );
  });

  return {
    /** Delivers the entry to every connected client once the caller's unit of work has committed. */
    publishAfterCommit(ref: DocumentKey, entry: TLiveStateEntry) {
      const message: LiveStateMessage = { kind: 'livestate', ...ref, entry };
      deps.uow.afterCommit(() => deps.fanout.publish(message));
    },
  };
}

export type LiveStateDelivery = ReturnType<typeof createLiveStateDelivery>;
