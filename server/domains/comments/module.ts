import type { DomainModule, Platform } from '../../platform/module.js';
import type { Access } from '../access/module.js';
import { commentsOwnedData, commentsUserData } from './owned-data.js';
import { createCommentsRepo } from './repo.js';
import { createAgentSuggestions } from './agent-suggestions.js';
import { createCommentsService } from './service.js';
import { createThreadPaths } from './thread-paths.js';

export function commentsModule(p: Platform, deps: { access: Access }) {
  const { repos, ensureHeldDocument, checks } = deps.access;
  const repo = createCommentsRepo(p.db);
  const paths = createThreadPaths({ repo, users: repos.users, ensureHeldDocument, events: p.events, clock: p.clock, ids: p.ids });
  const comments = createCommentsService({
    repo,
    organizations: repos.organizations,
    documents: repos.documents,
    checks,
    uow: p.uow,
    clock: p.clock,
    ids: p.ids,
    pageTokens: p.pageTokens,
    paths,
  });
  // An agent run's findings as suggestion threads, through the same paths: for the agents module (and the tests), not routed.
  const agentSuggestions = createAgentSuggestions({ repo, uow: p.uow, paths });
  return {
    services: { comments, agentSuggestions },
    ownedData: [commentsOwnedData(repo)],
    userData: commentsUserData(repo),
  } satisfies DomainModule;
}

