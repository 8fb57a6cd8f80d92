import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract/index.js';
import { applicationOf } from '../../http/context.js';
import { ok, paged } from '../../http/respond.js';
import type { DefinitionsService } from './services/definitions.js';
import type { ExecutionsService } from './services/executions.js';
import type { StepsService } from './services/steps.js';

export function workflowDefinitionsRouter(definitions: DefinitionsService) {
  return initServer().router(contract.workflowDefinitions, {
    createWorkflowDefinition: async ({ req, body }) => ok('Workflow definition created.', await definitions.createWorkflowDefinition(applicationOf(req), body.data)),
    updateWorkflowDefinition: async ({ req, body }) => ok('Workflow definition updated.', await definitions.updateWorkflowDefinition(applicationOf(req), body.data)),
    getWorkflowDefinition: async ({ req, body }) => ok('Workflow definition retrieved successfully.', await definitions.getWorkflowDefinition(applicationOf(req), body.data)),
    listWorkflowDefinitions: async ({ req, body }) => paged('Workflow definitions retrieved successfully.', await definitions.listWorkflowDefinitions(applicationOf(req), body.data)),
    deleteWorkflowDefinition: async ({ req, body }) => ok('Workflow definition deleted.', await definitions.deleteWorkflowDefinition(applicationOf(req), body.data)),
  });
}

export function workflowExecutionsRouter(executions: ExecutionsService) {
  return initServer().router(contract.workflowExecutions, {
    dispatchWorkflowExecution: async ({ req, body }) => ok('Workflow execution dispatched.', await executions.dispatchWorkflowExecution(applicationOf(req), body.data)),
    getWorkflowExecution: async ({ req, body }) => ok('Workflow execution retrieved successfully.', await executions.getWorkflowExecution(applicationOf(req), body.data)),
    listWorkflowExecutions: async ({ req, body }) => paged('Workflow executions retrieved successfully.', await executions.listWorkflowExecutions(applicationOf(req), body.data)),
    cancelWorkflowExecution: async ({ req, body }) => ok('Workflow execution cancelled.', await executions.cancelWorkflowExecution(applicationOf(req), body.data)),
    getWorkflowExecutionEvents: async ({ req, body }) => ok('Workflow execution events retrieved successfully.', await executions.getWorkflowExecutionEvents(applicationOf(req), body.data)),
  });
}

export function workflowStepsRouter(steps: StepsService) {
  return initServer().router(contract.workflowSteps, {
    recordWorkflowReviewerDecision: async ({ req, body }) => ok('Reviewer decision recorded.', await steps.recordWorkflowReviewerDecision(applicationOf(req), body.data)),
    resolveWorkflowStep: async ({ req, body }) => ok('Workflow step resolved.', await steps.resolveWorkflowStep(applicationOf(req), body.data)),
    cancelWorkflowStep: async ({ req, body }) => ok('Workflow step cancelled.', await steps.cancelWorkflowStep(applicationOf(req), body.data)),
    recordWorkflowAgentResolution: async ({ req, body }) => ok('Agent resolution recorded.', await steps.recordWorkflowAgentResolution(applicationOf(req), body.data)),
  });
}
