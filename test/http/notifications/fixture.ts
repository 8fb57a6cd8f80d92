import type { TComment, TCommentAnnotation } from '../../../contract/comments/schemas.js';
import type { TUserRef } from '../../../contract/common/content.js';
import type { EventPayload, EventType } from '../../../contract/events.js';
import type { TestServer, WorkspaceCredentials } from '../../helpers/server.js';

/**
 * Comment events as the comments domain publishes them, for testing the
 * notification projection through the real event bus (the comments domain is
 * built separately; its own tests cover the publishing side).
 */
let sequence = 0;

export async function applicationIdOf(server: TestServer, ws: WorkspaceCredentials): Promise<string> {
  return (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', ws.apiKey)).apiKey.id;
}

export function commentOf(from: TUserRef, text: string, tagged: TUserRef[] = []): TComment {
  sequence += 1;
  return { commentId: `c${sequence}`, commentText: text, from, taggedUserContacts: tagged, createdAt: 1, lastUpdated: 1, reactions: [] };
}

export function threadOf(input: {
  organizationId: string;
  documentId: string;
  from: TUserRef;
  comments?: TComment[];
  assignedTo?: TUserRef | null;
  context?: Record<string, unknown> | null;
  locationId?: string;
}): TCommentAnnotation {
  sequence += 1;
  return {
    annotationId: `a${sequence}`,
    organizationId: input.organizationId,
    documentId: input.documentId,
    ...(input.locationId ? { location: { locationId: input.locationId } } : {}),
    status: 'open',
    priority: null,
    assignedTo: input.assignedTo ?? null,
    customList: [],
    context: input.context ?? null,
    from: input.from,
    comments: input.comments ?? [],
    createdAt: 1,
    lastUpdated: 1,
  };
}

/** Publishes one event in its own unit of work, as a comment write would. */
export async function publish<T extends EventType>(server: TestServer, apiKeyId: string, type: T, actor: TUserRef, payload: EventPayload<T>) {
  const { services, database } = server.running;
  const annotation = (payload as { annotation?: TCommentAnnotation }).annotation;
  return database.uow.run(() =>
    services.events.publish({ type, apiKeyId, organizationId: annotation?.organizationId, documentId: annotation?.documentId, actor, payload }),
  );
}
