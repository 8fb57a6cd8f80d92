import type { Clock } from '../../lib/clock.js';
import type { OwnedData } from '../../platform/owned-data.js';
import type { DefinitionsRepo } from './repos/definitions.js';
import type { createExecutionsOwnership } from './repos/executions.js';

/**
 * Workflow executions in the owned-data registry: a document's executions
 * (with their steps, decisions and events) follow it to a new ID and go
 * with it or its organization; erasing a user deletes their reviewer
 * decisions. Definitions belong to the application: one scoped to a
 * document follows its new ID, and one scoped to a deleted document or
 * organization is tombstoned (it could start nothing; it stays readable).
 */
export function workflowsOwnedData(repo: ReturnType<typeof createExecutionsOwnership>, definitions: DefinitionsRepo, clock: Clock): OwnedData {
  const now = () => BigInt(clock.nowMs());
  return {
    name: 'workflow executions',
    models: ['WorkflowDefinition', 'WorkflowExecution', 'WorkflowStep', 'WorkflowReviewerDecision', 'WorkflowEvent'],
    async moveDocument(from, to) {
      await repo.moveDocument(from.apiKeyId, from.organizationId, from.documentId, to);
      await definitions.moveDocumentScope(from.apiKeyId, from.organizationId, from.documentId, to);
    },
    async deleteDocuments({ apiKeyId, organizationId, documentIds }) {
      await repo.deleteDocuments(apiKeyId, organizationId, documentIds);
      await definitions.tombstoneScoped(apiKeyId, organizationId, documentIds, now());
    },
    async deleteOrganization({ apiKeyId, organizationId }) {
      await repo.deleteOrganization(apiKeyId, organizationId);
      await definitions.tombstoneScoped(apiKeyId, organizationId, undefined, now());
    },
    eraseUser: async ({ apiKeyId, userId }) => void (await repo.deleteDecisionsBy(apiKeyId, userId)),
  };
}
