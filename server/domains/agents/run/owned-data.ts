import type { OwnedData } from '../../../platform/owned-data.js';
import type { RunsRepo } from '../repos/runs.js';

/**
 * Agent runs in the owned-data registry: a document's runs follow it to a
 * new ID and go with it (their pages too); erasing a user forgets that they
 * started a run (`ranBy`), and the run stays, as what others see of it is
 * the agent's work. The suggestion threads a run wrote are comments, which
 * the comments domain moves and erases.
 */
export function runsOwnedData(repo: RunsRepo): OwnedData {
  return {
    name: 'agent runs',
    models: ['AgentExecution', 'AgentExecutionResult'],
    moveDocument: (from, to) => repo.moveDocument(from.apiKeyId, from.organizationId, from.documentId, to),
    deleteDocuments: ({ apiKeyId, organizationId, documentIds }) => repo.deleteRuns(apiKeyId, organizationId, documentIds),
    deleteOrganization: ({ apiKeyId, organizationId }) => repo.deleteRuns(apiKeyId, organizationId),
    eraseUser: async ({ apiKeyId, userId }) => void (await repo.forgetRanBy(apiKeyId, userId)),
  };
}
