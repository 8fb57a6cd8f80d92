import type { TUserRef } from '../../../contract/common/content.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Caller } from '../../platform/caller.js';
import type { CommentsRepo, ThreadRecord } from './repo.js';
import { suggestionComment } from './suggestion-text.js';
import type { NewThread, ThreadPaths } from './thread-paths.js';

/**
 * The statuses under which an agent's suggestion is still untouched, so a
 * later run of the agent may replace it. The comments domain knows `open`,
 * `in_progress`, `resolved` and custom values (an application's `accepted`
 * or `rejected` among them): anything but `open` means someone acted on it.
 */
export const OPEN_SUGGESTION_STATUSES = ['open'];

/** One finding of an agent run, as the runner hands it over. */
export interface AgentFindingInput {
  findingId: string;
  url: string;
  title: string;
  description: string;
  severity: string;
  findingType: 'text' | 'pin' | 'page';
  issueType: string;
  confidence: number;
  suggestion: string;
  htmlSelector: string;
  targetText: string;
  occurrence: number;
}

export interface AddAgentSuggestionsInput {
  organizationId: string;
  documentId: string;
  /** `private`: reads made for a user show the threads to the organization's members only; `public`: to anyone who can read the document. */
  visibility: 'private' | 'public';
  /** Who the threads are from: the run's ranBy user, or one standing for the agent (e.g. `agent:<agentId>`). */
  author: TUserRef;
  agent: { agentId: string; executionId: string };
  findings: AgentFindingInput[];
}

export interface DeleteOpenAgentSuggestionsInput {
  organizationId: string;
  documentId: string;
  agentId: string;
  url: string;
  /** The run whose own suggestions stay (the one clearing its page before writing). */
  exceptExecutionId?: string;
  /** The acting user of the delete events; default: each thread's author. */
  actor?: TUserRef;
}

/**
 * An agent run's side of the comments domain: its findings as suggestion
 * threads, and the clearing of a page's untouched suggestions before a new
 * run writes its own. Not an HTTP operation: the agents module calls these
 * (the comments module hands them over as `shared.agentSuggestions`).
 */
export function createAgentSuggestions(deps: { repo: CommentsRepo; uow: UnitOfWork; paths: ThreadPaths }) {
  const { repo, uow, paths } = deps;
  const { openThreads, removeThreads, userResolver } = paths;

  /**
   * An agent run's findings on one document, each as a suggestion thread
   * with one comment (the finding's title, description and suggested
   * change), all in one unit of work, through the path of Add Comment
   * Annotations. Result: where each finding went, in the order given.
   */
  async function addAgentSuggestions(app: Caller, input: AddAgentSuggestionsInput): Promise<{ findingId: string; annotationId: string; commentId: string }[]> {
    if (input.findings.length === 0) return [];
    const membersOnly = input.visibility === 'private';
    const threads: NewThread[] = input.findings.map((f) => ({
      from: input.author,
      commentData: [suggestionComment(f)],
      origin: {
        type: 'suggestion',
        sourceType: 'agent',
        agentId: input.agent.agentId,
        agent: {
          agentId: input.agent.agentId,
          executionId: input.agent.executionId,
          url: f.url,
          reason: {
            findingId: f.findingId,
            title: f.title,
            description: f.description,
            severity: f.severity,
            findingType: f.findingType,
            issueType: f.issueType,
            confidence: f.confidence,
            suggestion: f.suggestion,
            htmlSelector: f.htmlSelector,
            targetText: f.targetText,
            occurrence: f.occurrence,
          },
        },
        membersOnly,
      },
    }));
    const saved = await uow.run(() => openThreads(app, input.organizationId, input.documentId, threads));
    return saved.map((annotation, i) => ({ findingId: input.findings[i]!.findingId, annotationId: annotation.annotationId, commentId: annotation.comments[0]!.commentId }));
  }

  /**
   * Deletes the agent's suggestions on one page (`url`) of the document that
   * are still untouched (OPEN_SUGGESTION_STATUSES), except those of
   * `exceptExecutionId`, in one unit of work, through the path of Delete
   * Comment Annotations (one `comment_annotation.delete` each). Returns how
   * many it deleted.
   */
  async function deleteOpenAgentSuggestions(app: Caller, input: DeleteOpenAgentSuggestionsInput): Promise<number> {
    const key = { apiKeyId: app.apiKeyId, organizationId: input.organizationId, documentId: input.documentId };
    const doomed = (row: ThreadRecord) =>
      row.agentId === input.agentId &&
      OPEN_SUGGESTION_STATUSES.includes(row.status) &&
      row.agent !== null &&
      row.agent.url === input.url &&
      row.agent.executionId !== input.exceptExecutionId;
    return uow.run(async () => {
      const candidates = (await repo.agentThreads(key, input.agentId, OPEN_SUGGESTION_STATUSES)).filter(doomed).map((r) => r.id);
      if (candidates.length === 0) return 0;
      await repo.lockThreads(key, candidates);
      // Read again under the lock: a thread resolved or deleted meanwhile is not this call's to delete.
      const rows = (await repo.findThreads(key, candidates)).filter(doomed);
      const actor = input.actor ? (await userResolver(app.apiKeyId, [input.actor]))(input.actor) : undefined;
      await removeThreads(app, key, rows, (row) => actor ?? row.fromUser ?? { userId: row.fromUserId });
      return rows.length;
    });
  }

  return { addAgentSuggestions, deleteOpenAgentSuggestions };
}

export type AgentSuggestions = ReturnType<typeof createAgentSuggestions>;
