import type { Client } from '../../../sdk/index.js';

type CreateInput = Parameters<Client['workflowDefinitions']['createWorkflowDefinition']>[0];

/** One human review with a reject route back to nothing but a notice: the smallest useful definition. */
export function reviewDefinition(definitionId: string, reviewers: { userId: string; mandatory?: boolean }[]): CreateInput {
  return {
    definitionId,
    name: `Review ${definitionId}`,
    nodes: [
      { nodeId: 'review', type: 'human', config: { reviewers } },
      { nodeId: 'approved', type: 'notification', config: { userIds: [reviewers[0]!.userId], bodyTemplate: 'Approved: {{input.decision}}' } },
      { nodeId: 'rejected', type: 'notification', config: { userIds: [reviewers[0]!.userId], bodyTemplate: 'Rejected by {{input.rejectedBy}}' } },
    ],
    edges: [
      { from: 'review', to: 'approved', on: 'approve' },
      { from: 'review', to: 'rejected', on: 'reject' },
    ],
  };
}
