import { EVENT_PAYLOADS, type EventPayload, type EventType } from '../../contract/events.js';
import type { TUserRef } from '../../contract/common/content.js';
import { insertMany } from '../db/bulk.js';
import type { Db } from '../db/client.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import type { Clock } from '../lib/clock.js';
import type { Ids } from '../lib/ids.js';

/** Something that happened, as projections and webhook deliveries see it. */
export interface DomainEvent<T extends EventType = EventType> {
  id: string;
  type: T;
  apiKeyId: string;
  organizationId: string | null;
  documentId: string | null;
  actor: TUserRef | null;
  /** Unix milliseconds. */
  occurredAt: number;
  payload: EventPayload<T>;
}

export interface NewEvent<T extends EventType> {
  type: T;
  apiKeyId: string;
  organizationId?: string;
  documentId?: string;
  actor?: TUserRef;
  payload: EventPayload<T>;
}

/** Writes what an event implies (activity records, notifications) with the event's own transaction. */
export type Projection = (event: DomainEvent) => Promise<void>;

export interface EventBus {
  /**
   * Records the event: its outbox row and every projection's writes, in the
   * caller's unit of work, so the change, its history and its deliveries are
   * committed together or not at all. Throws outside a unit of work.
   */
  publish<T extends EventType>(event: NewEvent<T>): Promise<DomainEvent<T>>;
  /** Registers a projection for some event types ('*': all), run in registration order. */
  project(types: readonly EventType[] | '*', name: string, projection: Projection): void;
  /** Runs after each committed publish (outside the transaction): wake a dispatcher, push to sockets. */
  afterCommit(listener: (event: DomainEvent) => void | Promise<void>): void;
  /** The application's event read back from the outbox; null once it is gone (pruned, or deleted with its document or a user it names). */
  find(apiKeyId: string, id: string): Promise<DomainEvent | null>;
}

export function createEventBus(deps: { db: Db; uow: UnitOfWork; ids: Ids; clock: Clock }): EventBus {
  const projections: { types: ReadonlySet<EventType> | '*'; name: string; run: Projection }[] = [];
  const listeners: ((event: DomainEvent) => void | Promise<void>)[] = [];

  return {
    async publish(input) {
      if (!deps.uow.active()) throw new Error(`event ${input.type} published outside a unit of work`);
      // The registry's schema is the payload's shape: a projection or webhook receiver never sees anything else.
      const payload = EVENT_PAYLOADS[input.type].parse(input.payload) as EventPayload<typeof input.type>;
      const event: DomainEvent<typeof input.type> = {
        id: deps.ids.next('evt'),
        type: input.type,
        apiKeyId: input.apiKeyId,
        organizationId: input.organizationId ?? null,
        documentId: input.documentId ?? null,
        actor: input.actor ?? null,
        occurredAt: deps.clock.nowMs(),
        payload,
      };
      // Past the ORM (db/bulk.ts): every write publishes.
      await insertMany(deps.db, 'DomainEvent', [
        {
          id: event.id,
          apiKeyId: event.apiKeyId,
          type: event.type,
          organizationId: event.organizationId,
          documentId: event.documentId,
          actorUserId: event.actor?.userId ?? null,
          body: JSON.stringify({ actor: event.actor, payload: event.payload }),
          occurredAt: BigInt(event.occurredAt),
        },
      ]);
      for (const projection of projections) {
        if (projection.types === '*' || projection.types.has(event.type)) await projection.run(event);
      }
      if (listeners.length > 0) {
        deps.uow.afterCommit(async () => {
          for (const listener of listeners) await listener(event);
        });
      }
      return event;
    },

    project(types, name, run) {
      if (projections.some((p) => p.name === name)) throw new Error(`projection ${name} is registered twice`);
      projections.push({ types: types === '*' ? '*' : new Set(types), name, run });
    },

    afterCommit(listener) {
      listeners.push(listener);
    },

    async find(apiKeyId, id) {
      const row = await deps.db.domainEvent.findFirst({ where: { apiKeyId, id } });
      return row === null ? null : eventFromRow(row);
    },
  };
}

/** An outbox row read back. */
export function eventFromRow(row: {
  id: string;
  apiKeyId: string;
  type: string;
  organizationId: string | null;
  documentId: string | null;
  body: string;
  occurredAt: bigint;
}): DomainEvent {
  const body = JSON.parse(row.body) as { actor: TUserRef | null; payload: unknown };
  return {
    id: row.id,
    type: row.type as EventType,
    apiKeyId: row.apiKeyId,
    organizationId: row.organizationId,
    documentId: row.documentId,
    actor: body.actor,
    occurredAt: Number(row.occurredAt),
    payload: body.payload as DomainEvent['payload'],
  };
}
