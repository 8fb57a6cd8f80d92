import { MAX_NOTIFICATION_BODY_CHARS, MAX_NOTIFICATION_HEADLINE_CHARS } from '../../../contract/workflows/schemas.js';
import { projection } from '../../platform/module.js';
import type { DomainModule, Platform } from '../../platform/module.js';
import type { DomainEvent } from '../../platform/events.js';
import type { Access } from '../access/module.js';
import type { NotificationsService } from '../notifications/service.js';
import type { RunsService } from '../agents/services/runs.js';
import { createTransitions } from './engine/engine.js';
import { createRunner } from './engine/runner.js';
import { createRuntimes, resealBody } from './engine/runtimes.js';
import { createCallbackTokens } from './engine/callback-tokens.js';
import { createDefinitionWebhooks } from './engine/definition-webhooks.js';
import { createWebhookNodes } from './engine/webhook-node.js';
import { recordWorkflowStepCallback } from '../../../contract/workflows/steps.js';
import { createCallbacksService } from './services/callbacks.js';
import { createTriggersService } from './services/triggers.js';
import { createDefinitionsRepo } from './repos/definitions.js';
import { createExecutionsOwnership, createExecutionsRepo } from './repos/executions.js';
import { createDefinitionsService } from './services/definitions.js';
import { createExecutionsService } from './services/executions.js';
import { createStepsService } from './services/steps.js';
import { workflowsOwnedData } from './owned-data.js';

/**
 * Approval workflows: definitions (versioned graphs of agent, human and
 * notification nodes, edges, quorum groups and loops), executions walked
 * by durable jobs one transition at a time, their event log (also published
 * as domain events, so the advanced webhooks carry them, and sent to the
 * definition's own webhookConfig), the reviewers' and operators' operations
 * on steps, webhook steps with their callbacks, and inbound triggers.
 */
export function workflowsModule(
  p: Platform,
  deps: {
    access: Access;
    agentRuns: Pick<RunsService, 'runAgent' | 'getAgentExecution' | 'cancelAgentExecution'>;
    agentExists(apiKeyId: string, agentId: string): Promise<boolean>;
    notifications: Pick<NotificationsService, 'addNotification'>;
    apiKeyOf(apiKeyId: string): Promise<string>;
    /** Where third parties reach this server (async webhook steps' callback URL). */
    publicUrl(): string;
  },
) {
  const definitionsRepo = createDefinitionsRepo(p.db);
  const repo = createExecutionsRepo(p.db);
  const runtimes = createRuntimes(definitionsRepo);
  let jobDefs: ReturnType<ReturnType<typeof createRunner>['define']> | undefined;
  const transitions = createTransitions({
    repo,
    runtimes,
    uow: p.uow,
    jobs: p.jobs,
    events: p.events,
    clock: p.clock,
    log: p.logger,
    jobDefs: () => jobDefs!,
    async cancelAgentRun(apiKeyId, agentExecutionId) {
      const app = { apiKeyId, apiKey: await deps.apiKeyOf(apiKeyId) };
      await deps.agentRuns.cancelAgentExecution(app, { executionId: agentExecutionId }).catch(() => undefined);
    },
  });
  const definitionWebhooks = createDefinitionWebhooks({
    definitions: definitionsRepo,
    runtimes,
    jobs: p.jobs,
    sealer: p.sealer,
    clock: p.clock,
    log: p.logger,
    allowPrivateUrls: p.config.allowPrivateUrls,
    timeoutMs: p.config.webhooks.timeoutMs,
    retryScale: p.config.webhooks.retryScale,
  });
  definitionWebhooks.define(p.jobs);
  const callbackTokens = createCallbackTokens(p.sealer.deriveKey('workflow-callback'));
  const webhookNodes = createWebhookNodes({
    transitions,
    jobs: p.jobs,
    clock: p.clock,
    log: p.logger,
    tokens: callbackTokens,
    callbackUrl: () => `${deps.publicUrl()}${recordWorkflowStepCallback.path}`,
    target: (apiKeyId, definitionId) => definitionWebhooks.target(apiKeyId, definitionId),
    allowPrivateUrls: p.config.allowPrivateUrls,
  });
  webhookNodes.define(p.jobs);
  const runner = createRunner({
    webhooks: webhookNodes,
    repo,
    runtimes,
    transitions,
    jobs: p.jobs,
    apiKeyOf: deps.apiKeyOf,
    agents: {
      run: async (app, input) => deps.agentRuns.runAgent(app, input),
      async outcome(apiKeyId, agentExecutionId) {
        const app = { apiKeyId, apiKey: await deps.apiKeyOf(apiKeyId) };
        const { execution } = await deps.agentRuns.getAgentExecution(app, { executionId: agentExecutionId }).catch(() => ({ execution: null }));
        if (execution === null) return null;
        return { status: execution.status, summary: execution.resultsSummary as unknown as Record<string, unknown>, durationMs: execution.durationMs, error: execution.error };
      },
    },
    // The inbox notification (a custom one) and the event the email channel sends (server/domains/email/projection.ts).
    async notify(app, input) {
      const headline = input.headline.slice(0, MAX_NOTIFICATION_HEADLINE_CHARS);
      const body = input.body === null ? null : input.body.slice(0, MAX_NOTIFICATION_BODY_CHARS);
      const userIds = input.organizationId === null ? [] : input.userIds;
      let reached: string[] = [];
      if (input.organizationId !== null && userIds.length > 0) {
        const { notifyUsersByUserId } = await deps.notifications.addNotification(app, {
          organizationId: input.organizationId,
          ...(input.documentId === null ? {} : { documentId: input.documentId }),
          notifyUsers: userIds,
          displayHeadlineMessageTemplate: '{headline}',
          displayHeadlineMessageTemplateData: { headline },
          ...(body === null ? {} : { displayBodyMessage: body }),
          notificationSourceData: { workflow: input.source },
        });
        reached = Object.keys(notifyUsersByUserId);
      }
      await p.events.publish({
        type: 'workflow.notification',
        apiKeyId: app.apiKeyId,
        ...(input.organizationId === null ? {} : { organizationId: input.organizationId }),
        ...(input.organizationId === null || input.documentId === null ? {} : { documentId: input.documentId }),
        payload: { workflow: input.source, headline, body, users: userIds.map((userId) => ({ userId })), recipients: input.recipients },
      });
      return { reached };
    },
  });
  jobDefs = runner.define(p.jobs);

  const documents = deps.access.repos.documents;
  const organizations = deps.access.repos.organizations;
  const workflowDefinitions = createDefinitionsService({
    repo: definitionsRepo,
    runtimes,
    uow: p.uow,
    clock: p.clock,
    pageTokens: p.pageTokens,
    sealer: p.sealer,
    allowPrivateUrls: p.config.allowPrivateUrls,
    log: p.logger,
    async knownAgents(app, agentIds) {
      const known = new Set<string>();
      for (const agentId of new Set(agentIds)) if (await deps.agentExists(app.apiKeyId, agentId)) known.add(agentId);
      return known;
    },
  });
  const workflowExecutions = createExecutionsService({
    repo,
    definitions: definitionsRepo,
    runtimes,
    transitions,
    uow: p.uow,
    clock: p.clock,
    ids: p.ids,
    pageTokens: p.pageTokens,
    async placeExists(app, organizationId, documentId) {
      if (documentId !== null) return (await documents.findDocument(app.apiKeyId, organizationId, documentId)) !== null;
      return (await organizations.findOrganization(app.apiKeyId, organizationId)) !== null;
    },
  });
  const workflowSteps = createStepsService({ repo, transitions, startHuman: runner.startHuman });
  const workflowCallbacks = createCallbacksService({ transitions, tokens: callbackTokens });
  const workflowTriggers = createTriggersService({ definitions: definitionsRepo, runtimes, sealer: p.sealer, executions: workflowExecutions });

  // An agent step waits for its run: the run's end (in the agents domain's transaction) enqueues the job that ends the step.
  const agentRunEnded = projection(['agent.execution.completed'], 'workflow agent steps', async (raw) => {
    const event = raw as DomainEvent<'agent.execution.completed'>;
    const { execution } = event.payload;
    if (execution.trigger !== 'workflow' || execution.workflowExecutionId === null) return;
    const step = await repo.stepOfAgentRun(event.apiKeyId, execution.id);
    if (step === null) return;
    await p.jobs.enqueue(jobDefs!.agentDone, { apiKeyId: event.apiKeyId, executionId: step.executionId, stepId: step.stepId }, { apiKeyId: event.apiKeyId, key: `wf-agent-done:${execution.id}` });
  });

  return {
    services: { workflowDefinitions, workflowExecutions, workflowSteps, workflowCallbacks, workflowTriggers },
    ownedData: [workflowsOwnedData(createExecutionsOwnership(p.db), definitionsRepo, p.clock)],
    projections: [agentRunEnded, projection(definitionWebhooks.types, 'workflow definition webhooks', definitionWebhooks.project)],
    // The webhookConfig's secret and each inbound trigger's, sealed inside the version's JSON body.
    sealed: [{ table: 'WorkflowDefinitionVersion', key: ['apiKeyId', 'definitionId', 'version'], column: 'body', leaves: resealBody }],
  } satisfies DomainModule;
}
