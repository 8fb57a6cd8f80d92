import type { DomainModule, Platform } from '../../platform/module.js';
import type { Access } from '../access/module.js';
import { commentsOwnedData, commentsUserData } from './owned-data.js';
import { createCommentsRepo } from './repo.js';
import { createCommentsService } from './service.js';

export function commentsModule(p: Platform, deps: { access: Access }) {
  const { repos, ensureHeldDocument, checks } = deps.access;
  const repo = createCommentsRepo(p.db);
  const comments = createCommentsService({
    repo,
    organizations: repos.organizations,
    documents: repos.documents,
    users: repos.users,
    ensureHeldDocument,
    checks,
    uow: p.uow,
    events: p.events,
    clock: p.clock,
    ids: p.ids,
    pageTokens: p.pageTokens,
  });
  return {
    services: { comments },
    // What agent runs (a later module) write and clear: their findings as suggestion threads, through the comments' own paths.
    shared: {
      agentSuggestions: { addAgentSuggestions: comments.addAgentSuggestions, deleteOpenAgentSuggestions: comments.deleteOpenAgentSuggestions },
    },
    ownedData: [commentsOwnedData(repo)],
    userData: commentsUserData(repo),
  } satisfies DomainModule;
}

export type AgentSuggestions = ReturnType<typeof commentsModule>['shared']['agentSuggestions'];
