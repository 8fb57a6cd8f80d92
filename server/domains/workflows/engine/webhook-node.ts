import { DEFAULT_CALLBACK_TIMEOUT_MS, DEFAULT_WEBHOOK_TIMEOUT_MS, MAX_JSON_BYTES, type TWorkflowNode } from '../../../../contract/workflows/schemas.js';
import type { Clock } from '../../../lib/clock.js';
import { OutboundError, postBytes, type OutboundLog } from '../../../lib/outbound-http.js';
import type { JobDef, Jobs } from '../../../platform/jobs.js';
import type { StepRow } from '../repos/executions.js';
import type { CallbackTokens } from './callback-tokens.js';
import { workflowRequestHeaders, type WebhookTarget } from './definition-webhooks.js';
import { ZStepJob, type StepJob, type Transitions } from './engine.js';
import { parseJson, type Decision, type Json } from './state.js';
import type { Transition } from './transition.js';

type WebhookNode = Extract<TWorkflowNode, { type: 'webhook' }>;

/** What a receiver's answer may take of a step's output: the output's own cap. */
const RESPONSE_READ_BYTES = MAX_JSON_BYTES;
export const MAX_REQUEST_HEADERS = 20;
/** Ours (the signature and the body's framing), the connection's, and the namespace of our own headers. */
const RESERVED_PREFIXES = ['webhook-', 'content-', 'x-workflow-'];
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'trailers', 'transfer-encoding', 'upgrade', 'host']);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What Node's HTTP client accepts in a header value (no CR, LF or NUL). */
const VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Answers that mean "try later" rather than "you sent something wrong". */
const RETRIED_4XX = new Set([408, 425, 429]);

/** Why a node's `requestHeaders` cannot be sent, or null (checked at create and update). */
export function requestHeadersProblem(headers: Record<string, string> | undefined): string | null {
  const entries = Object.entries(headers ?? {});
  if (entries.length > MAX_REQUEST_HEADERS) return `has ${entries.length} headers; at most ${MAX_REQUEST_HEADERS}`;
  const seen = new Set<string>();
  for (const [name, value] of entries) {
    const lower = name.toLowerCase();
    if (!TOKEN.test(name)) return `"${name.slice(0, 64)}" is not a header name`;
    if (RESERVED_PREFIXES.some((prefix) => lower.startsWith(prefix)) || HOP_BY_HOP.has(lower)) return `"${name}" is reserved (webhook-*, content-*, x-workflow-*, host and hop-by-hop headers are the server's)`;
    if (seen.has(lower)) return `"${name}" is given twice (header names are case-insensitive)`;
    if (!VALUE.test(value)) return `the value of "${name}" has a control character`;
    seen.add(lower);
  }
  return null;
}

/** The receiver's answer to a sync step, as the step's outcome: its decision and what the output keeps. */
function answerOf(status: number, text: string): { decision: Decision | null; output: Json } | { invalid: string } {
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  const output: Json = { httpStatus: status };
  if (json === undefined) {
    output.responseText = text;
    return { decision: null, output };
  }
  output.responseJson = json;
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return { decision: null, output };
  const answer = json as Json;
  const given = answer.output;
  if (given !== undefined && (given === null || typeof given !== 'object' || Array.isArray(given))) return { invalid: 'the answer\'s output is not a JSON object' };
  const decision = answer.decision;
  if (decision !== undefined && decision !== 'approve' && decision !== 'reject') return { invalid: 'the answer\'s decision is neither "approve" nor "reject"' };
  return { decision: (decision as Decision | undefined) ?? null, output: { ...(given as Json | undefined), ...output, ...(decision === undefined ? {} : { decision }) } };
}

/**
 * Webhook steps. One run of the step job: a transition starts the step (an
 * attempt counted), the request goes out with no unit of work open (network
 * I/O never holds a transaction), and a second transition takes the answer,
 * unless the step moved on meanwhile (cancelled, or an async step's
 * callback came first).
 *
 * `sync`: a success (2xx, or one of `expectedStatusCodes`) completes the
 * step, the answer's `{decision, output}` deciding; a 4xx fails it for good
 * (`webhook-http-4xx`), as does an address the guard refuses
 * (`webhook-blocked`); a 5xx, 408, 425 or 429, a timeout or a network
 * failure throws, so the job tries again on its schedule, and when its tries
 * run out the step fails `webhook-unreachable`. `async`: the same request
 * with `callback: {url, token}`; a success parks the step (`waiting`) until
 * the callback (Record Workflow Step Callback) or its timeout
 * (`callback-timeout`).
 */
export function createWebhookNodes(deps: {
  transitions: Transitions;
  jobs: Jobs;
  clock: Clock;
  log: OutboundLog;
  tokens: CallbackTokens;
  /** Where receivers post callbacks: the server's public address and the callback operation. */
  callbackUrl(): string;
  /** The definition's current webhookConfig: its secret signs the requests. */
  target(apiKeyId: string, definitionId: string): Promise<WebhookTarget | null>;
  allowPrivateUrls: boolean;
}) {
  const { transitions } = deps;
  let timeout: JobDef<StepJob> | undefined;

  /** Ends the step if it is still the running try's (a cancel or a callback may have come first). */
  async function settle(job: StepJob, change: (t: Transition, step: StepRow) => Promise<void> | void): Promise<void> {
    await transitions.transact(job.apiKeyId, job.executionId, async (t) => {
      const step = t.step(job.stepId);
      if (step === undefined || step.status !== 'running' || t.ended) return;
      await change(t, step);
    });
  }

  async function run(job: StepJob): Promise<void> {
    const started = await transitions.transact(job.apiKeyId, job.executionId, (t) => {
      const step = t.step(job.stepId);
      // `running`: an earlier try threw (or its process died): this is the next one.
      if (step === undefined || (step.status !== 'pending' && step.status !== 'running') || t.ended) return null;
      t.begin(step);
      const node = t.graph.nodes.get(step.nodeId) as WebhookNode;
      return { node, step: { ...step }, execution: { ...t.execution } };
    });
    if (started?.result == null) return;
    const { node, step, execution } = started.result;
    const mode = node.config.mode ?? 'sync';

    const envelope: Json = {
      executionId: execution.id,
      definitionId: execution.definitionId,
      correlationId: execution.correlationId,
      stepId: step.stepId,
      nodeId: step.nodeId,
      iteration: step.iteration,
      input: parseJson(step.input),
      triggerContext: parseJson(execution.triggerContext),
    };
    if (mode === 'async') envelope.callback = { url: deps.callbackUrl(), token: deps.tokens.issue({ apiKeyId: job.apiKeyId, executionId: execution.id, stepId: step.stepId }) };
    const body = JSON.stringify(envelope);
    const signing = await deps.target(job.apiKeyId, execution.definitionId);
    const headers = { ...node.config.requestHeaders, ...workflowRequestHeaders(signing?.secret ?? null, `${execution.id}:${step.stepId}`, deps.clock.now(), body) };

    let answer: { status: number; text: string };
    try {
      answer = await postBytes(node.config.url, Buffer.from(body, 'utf8'), {
        headers,
        timeoutMs: node.config.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS,
        allowPrivate: deps.allowPrivateUrls,
        maxResponseBytes: RESPONSE_READ_BYTES,
        truncateResponse: true,
      });
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      if (error.kind === 'blocked' || error.kind === 'invalid_request') {
        deps.log.warn({ executionId: execution.id, stepId: step.stepId, ...error.detail }, `workflow webhook step refused: ${error.message}`);
        const code = error.kind === 'blocked' ? 'webhook-blocked' : 'webhook-invalid-request';
        return settle(job, (t, current) => t.end(current, { status: 'failed', error: { code, message: error.message } }));
      }
      if (error.kind === 'network') deps.log.warn({ executionId: execution.id, stepId: step.stepId, ...error.detail }, `workflow webhook step: ${error.message}`);
      // Tried again on the job's schedule; the message is what the step shows if the tries run out.
      throw new Error(`the webhook could not be reached: ${error.message}`);
    }

    const { status, text } = answer;
    const expected = node.config.expectedStatusCodes;
    const succeeded = expected === undefined ? status >= 200 && status < 300 : expected.includes(status);
    if (!succeeded) {
      if (status >= 500 || RETRIED_4XX.has(status)) throw new Error(`the webhook answered ${status}`);
      const code = status >= 400 && status < 500 ? 'webhook-http-4xx' : 'webhook-unexpected-status';
      return settle(job, (t, current) =>
        t.end(current, { status: 'failed', output: { httpStatus: status, responseText: text.slice(0, 2000) }, error: { code, message: `the webhook answered ${status}` }, eventData: { httpStatus: status } }),
      );
    }

    if (mode === 'async') {
      return settle(job, async (t, current) => {
        const callbackExpiresAt = t.now + (node.config.callbackTimeoutMs ?? DEFAULT_CALLBACK_TIMEOUT_MS);
        t.wait(current, { output: JSON.stringify({ httpStatus: status, callbackExpiresAt }) }, { nodeId: current.nodeId, nodeType: 'webhook', callbackExpiresAt });
        await deps.jobs.enqueue(timeout!, job, { apiKeyId: job.apiKeyId, runAt: callbackExpiresAt, key: `wf-callback:${job.executionId}:${job.stepId}` });
      });
    }
    const outcome = answerOf(status, text);
    if ('invalid' in outcome) {
      return settle(job, (t, current) =>
        t.end(current, { status: 'failed', output: { httpStatus: status, responseText: text.slice(0, 2000) }, error: { code: 'webhook-invalid-answer', message: outcome.invalid }, eventData: { httpStatus: status } }),
      );
    }
    return settle(job, (t, current) =>
      t.end(current, { status: 'completed', output: outcome.output, decision: outcome.decision, eventData: { httpStatus: status, source: 'webhook' } }),
    );
  }

  async function onCallbackTimeout(job: StepJob): Promise<void> {
    await transitions.transact(job.apiKeyId, job.executionId, (t) => {
      const step = t.openStep(job.stepId);
      if (step === undefined) return;
      t.end(step, { status: 'failed', error: { code: 'callback-timeout', message: 'the webhook\'s callback did not come within the node\'s callbackTimeoutMs' } });
    });
  }

  return {
    run,
    define(jobs: Jobs) {
      timeout = jobs.define<StepJob>({ kind: 'workflow-webhook-callback-timeout', payload: ZStepJob, run: ({ payload }) => onCallbackTimeout(payload) });
    },
  };
}

export type WebhookNodes = ReturnType<typeof createWebhookNodes>;
