import { compositeKey } from '../../lib/composite-key.js';
import type { OwnedData } from '../../platform/owned-data.js';
import type { PresenceAwareness } from './awareness.js';
import type { PresenceRepo, PresenceRecord } from './repo.js';

/** Retires the awareness states of these rows on every process, grouped by document, after the commit. */
function retire(awareness: PresenceAwareness, rows: readonly PresenceRecord[]) {
  const byDocument = new Map<string, PresenceRecord[]>();
  for (const row of rows) {
    const id = compositeKey(row.apiKeyId, row.organizationId, row.documentId);
    const group = byDocument.get(id);
    if (group) group.push(row);
    else byDocument.set(id, [row]);
  }
  for (const group of byDocument.values()) awareness.publishAfterCommit(group[0]!, { set: [], retire: group.map((row) => row.clientId) });
}

/**
 * Presence entries follow their document (clients of the target see them at
 * once) and go with their document or organization (whose loaded copies the
 * real-time layer drops, connections and awareness with them). Erasure
 * deletes the user's entries, and connected clients see them leave.
 */
export function presenceOwnedData(repo: PresenceRepo, awareness: PresenceAwareness): OwnedData {
  return {
    name: 'presence',
    models: ['Presence'],
    async moveDocument(from, to) {
      const { replaced, moved } = await repo.moveDocument(from.apiKeyId, from.organizationId, from.documentId, to);
      if (moved.length > 0) awareness.publishAfterCommit({ ...from, documentId: to }, { set: moved, retire: replaced.map((row) => row.clientId) });
    },
    async deleteDocuments({ apiKeyId, organizationId, documentIds }) {
      await repo.deleteDocuments(apiKeyId, organizationId, documentIds);
    },
    async deleteOrganization({ apiKeyId, organizationId }) {
      await repo.deleteOrganization(apiKeyId, organizationId);
    },
    async eraseUser({ apiKeyId, userId }) {
      retire(awareness, await repo.deleteByUser(apiKeyId, userId));
    },
  };
}
