import { createHash, createHmac } from 'node:crypto';
import type { RawInputOf } from '../../../../contract/common/envelope.js';
import { MAX_JSON_BYTES } from '../../../../contract/workflows/schemas.js';
import { SIGNATURE_HEADERS, type inboundWorkflowTrigger } from '../../../../contract/workflows/triggers.js';
import { failedPrecondition, invalidArgument, notFound, permissionDenied } from '../../../lib/app-error.js';
import { constantTimeEqual, type Sealer } from '../../../lib/crypto.js';
import type { Caller } from '../../../platform/caller.js';
import type { Runtimes } from '../engine/runtimes.js';
import { overJsonLimit } from '../engine/state.js';
import { lookupDotPath } from '../graph/path.js';
import type { DefinitionsRepo } from '../repos/definitions.js';
import type { ExecutionsService } from './executions.js';

/** Idempotency keys longer than this carry a digest of the sender's ID instead (a key is an indexed column). */
const MAX_KEY_CHARS = 200;
const EVENT_HEADERS = ['x-workflow-event', 'x-github-event'] as const;
const DELIVERY_HEADERS = ['webhook-id', 'idempotency-key', 'x-github-delivery'] as const;

export type InboundResult = { accepted: true; executionId: string; correlationId: string; deduplicated: boolean } | { accepted: false; reason: 'event-ignored' };

function header(headers: Record<string, string | undefined>, name: string): string | undefined {
  const text = headers[name];
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}


/** `sha256=<hex>` of the body with the secret's UTF-8 bytes as key: what GitHub sends as x-hub-signature-256. */
export function inboundSignature(secret: string, raw: Uint8Array | string): string {
  return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
}

/**
 * Inbound triggers: a third party's signed POST starts a run of the
 * definition with its body as triggerContext. The API key only names the
 * application (it is not a secret to the sender); the trigger's secret,
 * through the signature of the exact bytes sent, authenticates the call, so
 * nothing about the definition is acted on before it matches.
 */
export function createTriggersService(deps: { definitions: DefinitionsRepo; runtimes: Runtimes; sealer: Pick<Sealer, 'open'>; executions: Pick<ExecutionsService, 'dispatchWorkflowExecution'> }) {
  return {
    async inboundWorkflowTrigger(app: Caller, request: RawInputOf<typeof inboundWorkflowTrigger>): Promise<InboundResult> {
      const { definitionId } = request.params;
      const { triggerId } = request.query;
      const head = await deps.definitions.find(app.apiKeyId, definitionId);
      if (head === null) throw notFound(`no workflow definition ${definitionId}`);
      const { body } = await deps.runtimes.of(app.apiKeyId, definitionId, head.version);
      const triggers = body.triggers ?? [];
      let trigger = triggers[0];
      if (triggerId !== undefined) {
        trigger = triggers.find((candidate) => candidate.triggerId === triggerId);
        if (trigger === undefined) throw notFound(`workflow definition ${definitionId} has no inbound trigger ${triggerId}`);
      } else if (triggers.length === 0) {
        throw notFound(`workflow definition ${definitionId} has no inbound trigger`);
      } else if (triggers.length > 1) {
        throw invalidArgument(`workflow definition ${definitionId} has ${triggers.length} inbound triggers: name one with ?triggerId=`);
      }
      const inbound = trigger!.inboundWebhook;

      // Whatever is wrong (no header, another algorithm, another secret, a changed byte), one answer.
      const given = SIGNATURE_HEADERS.map((name) => header(request.headers, name)).find((value) => value !== undefined);
      const expected = inboundSignature(deps.sealer.open(inbound.secret!), request.raw);
      if (given === undefined || !constantTimeEqual(given.toLowerCase(), expected)) throw permissionDenied('signature does not match');

      if (head.status === 'tombstoned') throw failedPrecondition(`workflow definition ${definitionId} is deleted: it starts no new execution`);
      if (inbound.allowedEvents !== undefined) {
        const type = request.body.type;
        const event = EVENT_HEADERS.map((name) => header(request.headers, name)).find((value) => value !== undefined) ?? (typeof type === 'string' ? type : undefined);
        // Fails closed: an event whose name cannot be found is not one of those allowed.
        if (event === undefined || !inbound.allowedEvents.includes(event)) return { accepted: false, reason: 'event-ignored' };
      }
      if (overJsonLimit(request.body)) throw invalidArgument(`the body is over ${MAX_JSON_BYTES} bytes as JSON, the most a run's triggerContext holds`);

      const fromBody = inbound.idempotencyBodyPath === undefined ? undefined : lookupDotPath(request.body, inbound.idempotencyBodyPath);
      const eventId =
        typeof fromBody === 'string' && fromBody !== '' ? fromBody : typeof fromBody === 'number' && Number.isFinite(fromBody) ? String(fromBody) : DELIVERY_HEADERS.map((name) => header(request.headers, name)).find((value) => value !== undefined);
      // The definition is part of the key: two definitions' triggers may share a triggerId and see one sender's event IDs.
      const prefix = `trig:${definitionId}:${trigger!.triggerId}`;
      let idempotencyKey = eventId === undefined ? undefined : `${prefix}:${eventId}`;
      if (idempotencyKey !== undefined && idempotencyKey.length > MAX_KEY_CHARS) idempotencyKey = `${prefix}:sha256-${createHash('sha256').update(eventId!, 'utf8').digest('hex')}`.slice(0, MAX_KEY_CHARS);

      // The run takes the definition's scope (dispatch's default): a body never picks the organization or document.
      const dispatched = await deps.executions.dispatchWorkflowExecution(app, { definitionId, triggerContext: request.body, ...(idempotencyKey === undefined ? {} : { idempotencyKey }) });
      return { accepted: true, ...dispatched };
    },
  };
}

export type TriggersService = ReturnType<typeof createTriggersService>;
