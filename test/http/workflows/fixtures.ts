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

type WebhookConfig = Extract<CreateInput['nodes'][number], { type: 'webhook' }>['config'];

/** One webhook step `gate`; its reject goes to a second webhook step `after` at the same URL (which sees gate's output as input). */
export function webhookDefinition(definitionId: string, url: string, config: Partial<WebhookConfig> = {}, extra: Partial<CreateInput> = {}): CreateInput {
  return {
    definitionId,
    name: `Webhook ${definitionId}`,
    nodes: [
      { nodeId: 'gate', type: 'webhook', config: { url, ...config } },
      { nodeId: 'after', type: 'webhook', config: { url } },
    ],
    edges: [{ from: 'gate', to: 'after', on: 'reject' }],
    ...extra,
  };
}
