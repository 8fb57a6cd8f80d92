import type { OwnedData } from '../../platform/owned-data.js';
import type { createExecutionsOwnership } from './repos/executions.js';

/**
 * Workflow executions in the owned-data registry: a document's executions
 * (with their steps, decisions and events) follow it to a new ID and go
 * with it or its organization; erasing a user deletes their reviewer
 * decisions. Definitions belong to the application and stay.
 */
export function workflowsOwnedData(repo: ReturnType<typeof createExecutionsOwnership>): OwnedData {
  return {
    name: 'workflow executions',
    models: ['WorkflowExecution', 'WorkflowStep', 'WorkflowReviewerDecision', 'WorkflowEvent'],
    moveDocument: async (from, to) => void (await repo.moveDocument(from.apiKeyId, from.organizationId, from.documentId, to)),
    deleteDocuments: ({ apiKeyId, organizationId, documentIds }) => repo.deleteDocuments(apiKeyId, organizationId, documentIds),
    deleteOrganization: ({ apiKeyId, organizationId }) => repo.deleteOrganization(apiKeyId, organizationId),
    eraseUser: async ({ apiKeyId, userId }) => void (await repo.deleteDecisionsBy(apiKeyId, userId)),
  };
}
