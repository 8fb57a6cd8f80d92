import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract/index.js';
import { applicationOf, namedApplicationOf } from '../../http/context.js';
import { ok, paged } from '../../http/respond.js';
import type { DefinitionsService } from './services/definitions.js';
import type { ExecutionsService } from './services/executions.js';
import type { StepsService } from './services/steps.js';
import type { CallbacksService } from './services/callbacks.js';
import type { TriggersService } from './services/triggers.js';

export function workflowDefinitionsRouter(definitions: DefinitionsService) {
  return initServer().router(contract.workflowDefinitions, {
    createWorkflowDefinition: async ({ req, body }) => ok('Workflow definition created.', await definitions.createWorkflowDefinition(applicationOf(req), body.data)),
    updateWorkflowDefinition: async ({ req, body }) => ok('Workflow definition updated.', await definitions.updateWorkflowDefinition(applicationOf(req), body.data)),
    getWorkflowDefinition: async ({ req, body }) => ok('Workflow definition retrieved successfully.', await definitions.getWorkflowDefinition(applicationOf(req), body.data)),
    listWorkflowDefinitions: async ({ req, body }) => paged('Workflow definitions retrieved successfully.', await definitions.listWorkflowDefinitions(applicationOf(req), body.data)),
    deleteWorkflowDefinition: async ({ req, body }) => ok('Workflow definition deleted.', await definitions.deleteWorkflowDefinition(applicationOf(req), body.data)),
  });
}

export function workflowExecutionsRouter(executions: ExecutionsService, triggers: TriggersService) {
  return initServer().router(contract.workflowExecutions, {
    dispatchWorkflowExecution: async ({ req, body }) => ok('Workflow execution dispatched.', await executions.dispatchWorkflowExecution(applicationOf(req), body.data)),
    getWorkflowExecution: async ({ req, body }) => ok('Workflow execution retrieved successfully.', await executions.getWorkflowExecution(applicationOf(req), body.data)),
    listWorkflowExecutions: async ({ req, body }) => paged('Workflow executions retrieved successfully.', await executions.listWorkflowExecutions(applicationOf(req), body.data)),
    cancelWorkflowExecution: async ({ req, body }) => ok('Workflow execution cancelled.', await executions.cancelWorkflowExecution(applicationOf(req), body.data)),
    getWorkflowExecutionEvents: async ({ req, body }) => ok('Workflow execution events retrieved successfully.', await executions.getWorkflowExecutionEvents(applicationOf(req), body.data)),
    inboundWorkflowTrigger: async ({ req, params, query, headers, body }) => {
      const { apiKeyId, apiKey } = namedApplicationOf(req);
      // Kept by the body parser of rawBody operations (server/app.ts): the signature is over these bytes.
      const raw = req.rawBody ?? Buffer.alloc(0);
      return ok('Workflow trigger accepted.', await triggers.inboundWorkflowTrigger({ apiKeyId, apiKey }, { params, query, headers, body, raw }));
    },
  });
}

export function workflowStepsRouter(steps: StepsService, callbacks: CallbacksService) {
  return initServer().router(contract.workflowSteps, {
    recordWorkflowReviewerDecision: async ({ req, body }) => ok('Reviewer decision recorded.', await steps.recordWorkflowReviewerDecision(applicationOf(req), body.data)),
    resolveWorkflowStep: async ({ req, body }) => ok('Workflow step resolved.', await steps.resolveWorkflowStep(applicationOf(req), body.data)),
    cancelWorkflowStep: async ({ req, body }) => ok('Workflow step cancelled.', await steps.cancelWorkflowStep(applicationOf(req), body.data)),
    recordWorkflowAgentResolution: async ({ req, body }) => ok('Agent resolution recorded.', await steps.recordWorkflowAgentResolution(applicationOf(req), body.data)),
    // Public: the token in the body is the credential (services/callbacks.ts).
    recordWorkflowStepCallback: async ({ body }) => ok('Workflow step callback recorded.', await callbacks.recordWorkflowStepCallback(body.data)),
  });
}
