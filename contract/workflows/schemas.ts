import { z } from 'zod';
import { named } from '../common/named.js';
import { ZId } from '../access/schemas.js';
import { ZAgentId } from '../agents/schemas.js';
import { DEVICE_TYPES, MAX_URLS_TO_PROCESS } from '../agents/executions.js';

/**
 * Approval workflows: a definition is a graph of nodes (agent, human,
 * notification, webhook), edges between them and parallel groups; an
 * execution walks it. Field names and limits follow the hosted service's
 * approval engine where it shows them; docs/workflows.md holds what it
 * leaves open and where we differ.
 */

export const MAX_NODES = 100;
export const MAX_EDGES = 500;
export const MAX_GROUPS = 100;
export const MAX_TRIGGERS = 50;
export const MAX_LOOP_ITERATIONS = 20;
export const MAX_SLA_MS = 7 * 24 * 3600 * 1000;
export const DEFAULT_AGENT_MAX_RUNTIME_MS = 10 * 60 * 1000;
export const MAX_AGENT_MAX_RUNTIME_MS = 24 * 3600 * 1000;
export const MAX_REVIEWERS = 50;
export const MAX_RECIPIENTS = 50;
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
export const DEFAULT_CALLBACK_TIMEOUT_MS = 24 * 3600 * 1000;
export const MAX_CALLBACK_TIMEOUT_MS = 7 * 24 * 3600 * 1000;
/** `when` expressions, as a JSON string. */
export const MAX_WHEN_CHARS = 1000;
/** JSON objects the caller hands us to keep (triggerContext, custom, a step's output). */
export const MAX_JSON_BYTES = 64 * 1024;
export const REDACTED = '__redacted__';

export const NODE_TYPES = ['agent', 'human', 'notification', 'webhook'] as const;
export const EDGE_ROLES = ['approve', 'reject', 'always', 'exhausted', 'breached', 'custom'] as const;
export const QUORUM_POLICIES = ['waitAll', 'cancelOnQuorum', 'joinOnQuorum'] as const;
export const SCOPE_LEVELS = ['apiKey', 'organization', 'document'] as const;
export const DEFINITION_STATUSES = ['active', 'tombstoned'] as const;
export const EXECUTION_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled'] as const;
export const STEP_STATUSES = ['pending', 'running', 'waiting', 'completed', 'failed', 'skipped', 'cancelled', 'breached'] as const;
export const DECISIONS = ['approve', 'reject'] as const;
/** What getEvents returns and the webhooks carry: the hosted service's external event types. */
export const WORKFLOW_EVENT_TYPES = [
  'execution.dispatched',
  'execution.completed',
  'execution.failed',
  'execution.cancelled',
  'step.awaiting-approval',
  'step.completed',
  'step.failed',
  'step.breached',
  'step.cancelled',
  'group.quorum-met',
  'loop.iteration-started',
  'loop.exhausted',
] as const;
export type WorkflowEventType = (typeof WORKFLOW_EVENT_TYPES)[number];

/** `^[a-z0-9][a-z0-9-]{2,63}$`, as the hosted service. */
export const ZDefinitionId = z
  .string()
  .regex(/^(?!__proto__$)/, { message: 'must not be "__proto__"' })
  .regex(/^[a-z0-9][a-z0-9-]{2,63}$/, { message: 'must match ^[a-z0-9][a-z0-9-]{2,63}$ (lowercase letters, digits and dashes, 3 to 64 characters)' })
  .describe('Stable identifier of the definition: `^[a-z0-9][a-z0-9-]{2,63}$`.');
/** Node, group and trigger IDs: readable names, never an object key that is a prototype. */
export const ZNodeId = ZId.and(z.string().max(64)).describe('1–64 characters, unique in the definition.');
const ZShortId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^(?!__proto__$)/, { message: 'must not be "__proto__"' });
const ZNodeIdStr = ZShortId.describe('A node of the definition (1–64 characters).');
const ZDotPath = z
  .string()
  .min(1)
  .max(500)
  .regex(/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/, { message: 'must be a dot path such as payload.page.url' })
  .describe('A dot path into the run\'s `triggerContext` (e.g. `page.url`).');
const ZHttpsUrl = z.string().min(1).max(2000).url();
const ZSlaMs = z.number().int().min(1000).max(MAX_SLA_MS).optional().describe(`Deadline of the step from when it starts, 1 s to 7 days; past it the step is \`breached\`.`);
const ZJsonObject = z.record(z.unknown());

const nodeBase = {
  nodeId: ZNodeIdStr,
  name: z.string().min(1).max(200).optional().describe('A label; no effect on the run.'),
  description: z.string().max(2000).optional().describe('No effect on the run.'),
  slaMs: ZSlaMs,
};

export const ZAgentNodeConfig = z
  .object({
    agentId: ZAgentId,
    url: ZHttpsUrl.optional().describe('The page to run on (http or https); wins over `urlPath`.'),
    urlPath: ZDotPath.optional().describe('Where in `triggerContext` the page\'s URL is; a value without a scheme gets `https://`.'),
    crossPageExecute: z.boolean().optional(),
    maxUrlsToProcess: z.number().int().min(1).max(MAX_URLS_TO_PROCESS).optional(),
    deviceType: z.enum(DEVICE_TYPES).optional(),
    userContextMapping: z.record(ZDotPath).optional().describe('`{field: dotPath}`: the run\'s `userContext` from `triggerContext`.'),
    agentMaxRuntimeMs: z
      .number()
      .int()
      .min(1000)
      .max(MAX_AGENT_MAX_RUNTIME_MS)
      .optional()
      .describe(`Past it the run is cancelled and the step fails (\`agent-timeout\`); default ${DEFAULT_AGENT_MAX_RUNTIME_MS} ms.`),
    blocking: z.boolean().optional().describe('When the run ends the step waits (`waiting`, its outcome as `output.proposedDecision`) for Record Agent Resolution to accept or override it; default false: the outcome decides at once.'),
    pollIntervalMs: z.number().int().min(5000).max(60_000).optional().describe('Accepted for the hosted service\'s definitions; no effect here (the step resumes when the run ends, without polling).'),
  })
  .strict();

export const ZReviewer = named(
  'WorkflowReviewer',
  z
    .object({
      userId: ZId,
      mandatory: z.boolean().optional().describe('Default false.'),
    })
    .strict(),
);

export const ZHumanNodeConfig = z
  .object({
    reviewers: z.array(ZReviewer).min(1).max(MAX_REVIEWERS).optional().describe('Who decides. With mandatory reviewers the step approves once every one of them approved; with none, on the first approval. Any reject rejects it.'),
    reviewerIds: z.array(ZId).min(1).max(MAX_REVIEWERS).optional().describe('The hosted service\'s older form: every one mandatory. Give `reviewers` or `reviewerIds`, not both.'),
    reviewerEmails: z.array(z.string().email().max(320)).max(MAX_RECIPIENTS).optional().describe('Shown on the step\'s output for your reviewer UI.'),
    commentBody: z.string().max(8000).optional().describe('Shown on the step\'s output and in the reviewers\' notification.'),
  })
  .strict();

export const ZNotificationNodeConfig = z
  .object({
    channel: z.literal('email').optional().describe('Accepted for the hosted service\'s definitions; who is reached follows `userIds` and `recipients`.'),
    userIds: z
      .array(ZId)
      .min(1)
      .max(MAX_RECIPIENTS)
      .optional()
      .describe('Users of the run\'s organization: an inbox notification each unless their inbox config is NONE, and an email each unless their email config is NONE (the `workflow.notification` email trigger on, the user with an email address); users who cannot read the run\'s document get neither. Give `userIds`, `recipients` or both.'),
    recipients: z
      .array(z.string().email().max(320))
      .min(1)
      .max(MAX_RECIPIENTS)
      .optional()
      .describe('Email addresses, each sent the message through the application\'s email configuration while its `workflow.notification` trigger is on; no notification config applies to them.'),
    subjectTemplate: z.string().max(2000).optional().describe('The notification\'s headline and the email\'s subject; default the definition\'s name.'),
    bodyTemplate: z.string().min(1).max(16_000).describe('`{{input.x}}` (the previous step\'s output), `{{execution.triggerContext.x}}`, `{{step.nodeId}}`; a missing value renders empty, an object as JSON.'),
  })
  .strict();

export const ZWebhookNodeConfig = z
  .object({
    url: ZHttpsUrl.describe('Gets a POST of `{executionId, definitionId, correlationId, stepId, nodeId, iteration, input, triggerContext}` (`input`: the previous step\'s output), signed the Standard Webhooks way with the definition\'s `webhookConfig` secret when it has one; through the outbound guard (a private address only when the server allows them: INVALID_ARGUMENT at create, `webhook-blocked` when it resolves to one later).'),
    mode: z
      .enum(['sync', 'async'])
      .optional()
      .describe('`sync` (default): a success completes the step and its JSON `{decision?: "approve" | "reject", output?: {}}` decides; a 4xx fails it (`webhook-http-4xx`); a 5xx, 408, 425, 429, timeout or network error is tried again on the step job\'s schedule, then fails it (`webhook-unreachable`). `async`: the body adds `callback: {url, token}`; a success parks the step until Record Workflow Step Callback with that token, or `callbackTimeoutMs`.'),
    timeoutMs: z.number().int().min(1000).max(60_000).optional().describe(`Of the request; default ${DEFAULT_WEBHOOK_TIMEOUT_MS}.`),
    callbackTimeoutMs: z.number().int().min(1000).max(MAX_CALLBACK_TIMEOUT_MS).optional().describe(`\`async\`: how long the step waits for its callback before it fails (\`callback-timeout\`); default ${DEFAULT_CALLBACK_TIMEOUT_MS} ms.`),
    expectedStatusCodes: z.array(z.number().int().min(100).max(599)).min(1).max(20).optional().describe('Answers that succeed instead of any 2xx.'),
    requestHeaders: z.record(z.string().max(2000)).optional().describe('Extra headers (at most 20); `webhook-*`, `content-*`, `x-workflow-*`, `host` and hop-by-hop names are refused. Stored and shown as given: not for secrets.'),
  })
  .strict();

const node = <T extends (typeof NODE_TYPES)[number], C extends z.ZodTypeAny>(type: T, config: C) =>
  z.object({ ...nodeBase, type: z.literal(type), config }).strict();

export const ZWorkflowNode = named(
  'WorkflowNode',
  z.discriminatedUnion('type', [
    named('WorkflowAgentNode', node('agent', ZAgentNodeConfig)),
    named('WorkflowHumanNode', node('human', ZHumanNodeConfig)),
    named('WorkflowNotificationNode', node('notification', ZNotificationNodeConfig)),
    named('WorkflowWebhookNode', node('webhook', ZWebhookNodeConfig)),
  ]),
);
export type TWorkflowNode = z.infer<typeof ZWorkflowNode>;

export const ZEdgeEndpoint = named(
  'WorkflowEdgeEndpoint',
  z.union([
    ZNodeIdStr,
    z.object({ kind: z.literal('node'), nodeId: ZNodeIdStr }).strict(),
    z.object({ kind: z.literal('group'), groupId: ZShortId }).strict(),
  ]),
);
export type TEdgeEndpoint = z.infer<typeof ZEdgeEndpoint>;

export const ZWorkflowEdge = named(
  'WorkflowEdge',
  z
    .object({
      from: ZEdgeEndpoint,
      to: ZEdgeEndpoint,
      on: z.enum(EDGE_ROLES).optional().describe('Default `always` (the source ended completed, skipped, failed or breached).'),
      when: z.string().min(1).max(MAX_WHEN_CHARS).optional().describe('`on: custom` only: a condition as a JSON string, e.g. `{"op":"gt","args":[{"var":"output.score"},0.8]}` (docs/workflows.md).'),
      loop: z.object({ maxIterations: z.number().int().min(1).max(MAX_LOOP_ITERATIONS) }).strict().optional().describe('`on: reject` back to an earlier node only: at most this many passes through the loop.'),
    })
    .strict(),
);
export type TWorkflowEdge = z.infer<typeof ZWorkflowEdge>;

export const ZWorkflowGroup = named(
  'WorkflowGroup',
  z
    .object({
      groupId: ZShortId,
      memberNodeIds: z.array(ZNodeIdStr).min(1).max(MAX_NODES),
      expectedSteps: z.number().int().min(1).max(MAX_NODES).optional().describe('Default the number of members.'),
      quorum: z.number().int().min(1).max(MAX_NODES).describe('Approvals that meet the quorum.'),
      onQuorumMet: z.enum(QUORUM_POLICIES).optional().describe('Default `waitAll`.'),
      requiredNodeIds: z.array(ZNodeIdStr).max(MAX_NODES).optional().describe('Members whose approval the quorum needs.'),
    })
    .strict(),
);
export type TWorkflowGroup = z.infer<typeof ZWorkflowGroup>;

export const ZInboundWebhook = z
  .object({
    secret: z
      .union([z.literal(REDACTED), z.string().min(16).max(512)])
      .optional()
      .describe(`The HMAC-SHA256 key (its UTF-8 bytes, as GitHub uses a webhook secret). Left out: generated (\`whsec_…\`), and shown once in the response that created it; \`${REDACTED}\` on reads and, sent back on update, keeps the stored secret of the trigger with the same \`triggerId\`.`),
    allowedEvents: z.array(z.string().min(1).max(128)).min(1).max(50).optional().describe('Event names that start a run: the `x-workflow-event` header, else `x-github-event`, else the body\'s string `type`. Others, and a delivery whose event name cannot be found, are answered `{accepted: false, reason: "event-ignored"}` (200). Left out: every delivery starts a run.'),
    idempotencyBodyPath: ZDotPath.optional().describe('Where in the body the sender\'s event ID is (a string or a number); else the `webhook-id`, `idempotency-key` or `x-github-delivery` header. The run\'s idempotency key is `trig:<definitionId>:<triggerId>:<id>`: a redelivery answers the same execution with `deduplicated: true`. Without an ID every delivery starts a run.'),
  })
  .strict();

export const ZWorkflowTrigger = named(
  'WorkflowTrigger',
  z
    .object({
      triggerId: ZShortId.and(z.string().max(128)),
      eventName: z.string().max(128).optional(),
      inboundWebhook: ZInboundWebhook.describe('Starts a run on a signed POST to /v2/workflow/triggers/inbound/{definitionId}.'),
    })
    .strict(),
);
export type TWorkflowTrigger = z.infer<typeof ZWorkflowTrigger>;

const webhookConfig = z
  .object({
    url: ZHttpsUrl,
    secret: z
      .union([z.literal(REDACTED), z.string().min(16).max(512)])
      .optional()
      .describe(`Signs the deliveries and the definition's webhook nodes' requests (Standard Webhooks): \`whsec_\` and the base64 of a 24–64 byte key, as Standard Webhooks verifiers take it. Left out: generated and shown once in the response; \`${REDACTED}\` on reads and, sent back on update, keeps the stored one.`),
    eventTypes: z.array(z.enum(WORKFLOW_EVENT_TYPES)).min(1).max(50).optional().describe('Only these event types; default all.'),
  })
  .strict();
export const ZWebhookConfig = named('WorkflowWebhookConfig', webhookConfig);
/** The same, where it may be null (OpenAPI 3.0 has no nullable reference). */
const ZWebhookConfigOrNull = named('WorkflowWebhookConfigOrNull', webhookConfig.nullable());

export const ZScope = named(
  'WorkflowScope',
  z
    .object({
      level: z.enum(SCOPE_LEVELS),
      organizationId: ZId.nullable().optional().describe('Required by `organization` and `document`; null as reads show it is the same as left out.'),
      documentId: ZId.nullable().optional().describe('Required by `document`.'),
    })
    .strict(),
);

/** What create and update take (update adds `ifVersion`). */
export const definitionFields = {
  definitionId: ZDefinitionId,
  name: z.string().min(1).max(200),
  description: z.string().max(2000).optional(),
  scope: ZScope.optional().describe('Default `{level: "apiKey"}`: the whole application. `organization` needs `organizationId`, `document` both IDs; runs started by a trigger get them, and a run dispatched elsewhere is FAILED_PRECONDITION.'),
  nodes: z.array(ZWorkflowNode).min(1).max(MAX_NODES),
  edges: z.array(ZWorkflowEdge).max(MAX_EDGES).optional().describe('Default none.'),
  groups: z.array(ZWorkflowGroup).max(MAX_GROUPS).optional(),
  triggers: z.array(ZWorkflowTrigger).max(MAX_TRIGGERS).optional(),
  webhookConfig: ZWebhookConfig.optional(),
  tags: z.array(z.string().min(1).max(64)).max(20).optional(),
  custom: ZJsonObject.optional().describe(`Yours to keep (at most ${MAX_JSON_BYTES} bytes as JSON).`),
};

const ZJsonAst = z.record(z.unknown());
export const ZCompiledGraph = named(
  'WorkflowCompiledGraph',
  z.object({
    forwardEdges: z.array(
      z.object({
        from: z.string(),
        to: z.string(),
        role: z.enum(EDGE_ROLES),
        when: ZJsonAst.nullable().describe('The condition the edge takes; null for `always`, `breached` and `exhausted`.'),
        fromGroupId: z.string().optional(),
        toGroupId: z.string().optional(),
      }),
    ),
    loops: z.array(
      z.object({
        loopId: z.string(),
        from: z.string().describe('The node (or group, with `fromGroupId`) whose reject starts the next pass.'),
        fromGroupId: z.string().optional(),
        entryNodeId: z.string(),
        bodyNodeIds: z.array(z.string()),
        maxIterations: z.number().int(),
        onExhausted: z.object({ routeToNodeId: z.string() }).nullable(),
      }),
    ),
  }),
);
export type TCompiledGraph = z.infer<typeof ZCompiledGraph>;

export const ZWorkflowDefinition = named(
  'WorkflowDefinition',
  z.object({
    definitionId: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    version: z.number().int(),
    status: z.enum(DEFINITION_STATUSES),
    scope: z.object({ level: z.enum(SCOPE_LEVELS), organizationId: z.string().nullable(), documentId: z.string().nullable() }),
    nodes: z.array(ZWorkflowNode),
    edges: z.array(ZWorkflowEdge),
    groups: z.array(ZWorkflowGroup).nullable(),
    compiled: ZCompiledGraph,
    triggers: z.array(ZWorkflowTrigger).nullable(),
    webhookConfig: ZWebhookConfigOrNull,
    tags: z.array(z.string()).nullable(),
    custom: ZJsonObject.nullable(),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
  }),
);
export type TWorkflowDefinition = z.infer<typeof ZWorkflowDefinition>;

const stepError = z.object({ code: z.string(), message: z.string() });
/** A step's decision, null until it decided (OpenAPI 3.0 has no nullable reference). */
const ZDecisionOrNull = named('DecisionOrNull', z.enum(DECISIONS).nullable());

export const ZWorkflowStep = named(
  'WorkflowStep',
  z.object({
    stepId: z.string(),
    nodeId: z.string(),
    nodeType: z.enum(NODE_TYPES),
    status: z.enum(STEP_STATUSES),
    groupId: z.string().nullable(),
    iteration: z.number().int().describe('The pass through its loop (1 outside loops).'),
    attempts: z.number().int().describe('Times the step was started (a retried webhook, a restarted process).'),
    input: ZJsonObject.describe('What the step started from: the previous step\'s output, a loop\'s previous attempts, a group\'s outputs.'),
    output: ZJsonObject,
    decision: ZDecisionOrNull.describe('approve or reject once the step decided; null otherwise.'),
    error: stepError.nullable(),
    createdAt: z.number().int(),
    startedAt: z.number().int().nullable(),
    completedAt: z.number().int().nullable(),
  }),
);
export type TWorkflowStep = z.infer<typeof ZWorkflowStep>;

export const ZWorkflowExecution = named(
  'WorkflowExecution',
  z.object({
    executionId: z.string(),
    definitionId: z.string(),
    definitionVersion: z.number().int(),
    status: z.enum(EXECUTION_STATUSES),
    correlationId: z.string(),
    idempotencyKey: z.string().nullable(),
    organizationId: z.string().nullable(),
    documentId: z.string().nullable(),
    triggerContext: ZJsonObject,
    startedAt: z.number().int(),
    completedAt: z.number().int().nullable(),
    cancelledAt: z.number().int().nullable(),
    failureReason: stepError.nullable(),
    steps: z.array(ZWorkflowStep).describe('Every step, oldest first; empty in lists.'),
  }),
);
export type TWorkflowExecution = z.infer<typeof ZWorkflowExecution>;

export const ZWorkflowEvent = named(
  'WorkflowEvent',
  z.object({
    eventId: z.string(),
    seq: z.number().int().describe('Increases by one per event of the execution (internal events take none).'),
    type: z.enum(WORKFLOW_EVENT_TYPES),
    executionId: z.string(),
    definitionId: z.string(),
    correlationId: z.string(),
    stepId: z.string().nullable(),
    timestamp: z.number().int(),
    data: ZJsonObject,
  }),
);
export type TWorkflowEvent = z.infer<typeof ZWorkflowEvent>;

/** A workflow's message to people: a human step's review request, a notification step's message. */
export const WORKFLOW_NOTIFICATION_KINDS = ['review-requested', 'notification'] as const;
/** A workflow notification's headline and body are kept to these (as the inbox keeps them). */
export const MAX_NOTIFICATION_HEADLINE_CHARS = 4096;
export const MAX_NOTIFICATION_BODY_CHARS = 16_384;

/**
 * The `workflow.notification` domain event: a message a workflow step sent,
 * in the step's transaction. The inbox notification is written with it; the
 * email channel sends it to the users (by their email config) and addresses
 * it names. Users are user objects so that erasing one takes the event along.
 */
export const ZWorkflowNotification = z.object({
  workflow: z.object({
    executionId: z.string(),
    definitionId: z.string(),
    stepId: z.string(),
    nodeId: z.string(),
    kind: z.enum(WORKFLOW_NOTIFICATION_KINDS),
  }),
  headline: z.string().max(MAX_NOTIFICATION_HEADLINE_CHARS),
  body: z.string().max(MAX_NOTIFICATION_BODY_CHARS).nullable(),
  users: z.array(z.object({ userId: z.string() })).max(Math.max(MAX_REVIEWERS, MAX_RECIPIENTS)).describe('The users it was addressed to (reviewers, a notification node\'s userIds).'),
  recipients: z.array(z.string()).max(MAX_RECIPIENTS).describe('Email addresses it was addressed to (a notification node\'s recipients).'),
});
export type TWorkflowNotification = z.infer<typeof ZWorkflowNotification>;

export const ZExecutionId = ZId.describe('An execution ID, as Dispatch Execution returned it.');
export const ZStepId = ZId.describe('A step of the execution, as Get Execution lists it.');
export const ZActorId = z.string().min(1).max(256);
