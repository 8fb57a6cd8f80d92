import type { Logger } from 'pino';
import type { Config } from './config.js';
import { poolOfClient, type Db } from './db/client.js';
import type { UnitOfWork } from './db/unit-of-work.js';
import { PROJECTED_EVENT_TYPES } from '../contract/activities/triggers.js';
import { createFeatureGate } from './domains/accounts/features.js';
import { createAccountsRepo } from './domains/accounts/repo.js';
import { withReadCache } from './domains/accounts/cached-repo.js';
import { createReadCache } from './platform/read-cache.js';
import { createAccountsService } from './domains/accounts/service.js';
import { createAccessChecks } from './domains/access/checks.js';
import { createAccessLookups } from './domains/access/lookups.js';
import { createEnsureHeldDocument } from './domains/access/open-document.js';
import { accessOwnedData } from './domains/access/owned-data.js';
import { activitiesOwnedData } from './domains/activities/owned-data.js';
import { activityProjection } from './domains/activities/projection.js';
import { createActivitiesRepo } from './domains/activities/repo.js';
import { createActivitiesService } from './domains/activities/service.js';
import { createAccessRepos } from './domains/access/repos/index.js';
import { commentsOwnedData, commentsUserData } from './domains/comments/owned-data.js';
import { createCommentsRepo } from './domains/comments/repo.js';
import { createCommentsService } from './domains/comments/service.js';
import { registerEmail } from './domains/email/register.js';
import { registerNotifications } from './domains/notifications/register.js';
import { createOrganizationsService } from './domains/organizations/service.js';
import { createPermissionProviderClient } from './domains/permission-provider/client.js';
import { createPermissionsService } from './domains/permissions/service.js';
import { recordingsOwnedData, recordingsUserData } from './domains/recordings/owned-data.js';
import { createRecordingsRepo } from './domains/recordings/repo.js';
import { createRecordingsService } from './domains/recordings/service.js';
import { createSigningKeys, type SigningKeys } from './domains/permissions/signing-keys.js';
import { createMigrationsService } from './domains/migrations/service.js';
import { createUserDataService } from './domains/user-data/service.js';
import { createUsersService } from './domains/users/service.js';
import { createSettingsRepo } from './domains/workspace/repo.js';
import { createWorkspaceConfigService } from './domains/workspace/service.js';
import { nowSeconds, type Clock } from './lib/clock.js';
import type { Sealer } from './lib/crypto.js';
import { createIds } from './lib/ids.js';
import { createPageTokens } from './lib/page-token.js';
import { createEventBus } from './platform/events.js';
import { eventsOwnedData } from './platform/events-owned-data.js';
import { createEventRetention } from './platform/events-retention.js';
import { createJobs } from './platform/jobs.js';
import { createMetrics, type Metrics } from './platform/metrics.js';
import { createOwnedDataRegistry } from './platform/owned-data.js';
import { createConnectionAccess } from './realtime/connection-access.js';
import { localFanout, type Fanout } from './platform/fanout.js';
import { createRealtimeHub } from './realtime/hub.js';
import { crdtOwnedData } from './domains/crdt/owned-data.js';
import { createCrdtRepo } from './domains/crdt/repo.js';
import { createCrdtService } from './domains/crdt/service.js';
import { createCrdtStore } from './domains/crdt/store.js';
import { createLiveStateDelivery } from './domains/live-state/delivery.js';
import { liveStateOwnedData } from './domains/live-state/owned-data.js';
import { createLiveStateRepo } from './domains/live-state/repo.js';
import { createLiveStateService } from './domains/live-state/service.js';
import { createPresenceAwareness } from './domains/presence/awareness.js';
import { createConnectedUsers } from './domains/presence/connected-users.js';
import { presenceOwnedData } from './domains/presence/owned-data.js';
import { createPresenceRepo } from './domains/presence/repo.js';
import { createPresenceService } from './domains/presence/service.js';
import { localPresenceDirectory, type PresenceDirectory } from './platform/presence-directory.js';
import { createDeliveryQueueRepo } from './domains/webhooks/delivery-queue-repo.js';
import { createWebhookDispatcher } from './domains/webhooks/dispatcher.js';
import { createWebhookEndpointsRepo } from './domains/webhooks/endpoints-repo.js';
import { createWebhookEndpoints } from './domains/webhooks/endpoints.js';
import { createWebhookHistoryRepo } from './domains/webhooks/history-repo.js';
import { createWebhookHistory } from './domains/webhooks/history.js';
import { createWebhookMessagesRepo } from './domains/webhooks/messages-repo.js';
import { createWebhookMessages } from './domains/webhooks/messages.js';
import { webhooksOwnedData } from './domains/webhooks/owned-data.js';
import { createJudgmentIndexCache } from './domains/memory/index-cache.js';
import { memoryOwnedData, memoryUserData } from './domains/memory/owned-data.js';
import { createJudgmentsRepo } from './domains/memory/repo.js';
import { createMemoryService } from './domains/memory/service.js';
import { createWebhookSettings } from './domains/webhooks/settings.js';
import { createAiService } from './domains/ai/service.js';
import { createAgentGroups } from './domains/agents/groups.js';
import type { AgentLimits } from './domains/agents/limits.js';
import { createAgentsRepo } from './domains/agents/repo.js';
import { createAgentSecrets } from './domains/agents/secrets.js';
import { createAgentsService } from './domains/agents/service.js';

/** What every entry point (HTTP server, CLI, job worker, real-time layer) starts from. */
export interface CoreDeps {
  /** Cross-process real-time messages (Redis with REDIS_URL); default: this process only. */
  fanout?: Fanout;
  /** Where each process reports its WebSocket users for the others' Get Presence (Redis with REDIS_URL); default: this process only. */
  presenceDirectory?: PresenceDirectory;
  config: Config;
  db: Db;
  uow: UnitOfWork;
  sealer: Sealer;
  logger: Logger;
  clock: Clock;
  /** Test seam: lower per-application caps on custom agents and agent groups (defaults: the contract's). */
  agentLimits?: AgentLimits;
  /** How long a cached credential or setting is trusted without an invalidation (default 1 s; tests lengthen it). */
  readCacheTtlMs?: number;
  /** Where the services record their metrics (the HTTP server serves them); default: an instance nobody reads (the CLI). */
  metrics?: Metrics;
}

/**
 * The one composition root: every repo, service, the event bus, the job
 * queue and the owned-data registry, wired once. The HTTP app, the CLI and
 * the real-time layer take what they need from the result.
 */
export function createServices(deps: CoreDeps) {
  const { config, db, uow, sealer, logger, clock } = deps;
  const metrics = deps.metrics ?? createMetrics();
  const ids = createIds(clock);
  const events = createEventBus({ db, uow, ids, clock });
  // Started with the HTTP server (server.ts), never by the CLI.
  const eventRetention = createEventRetention({ db, clock, log: logger, retentionDays: config.eventRetentionDays });
  const jobs = createJobs({ db, uow, ids, clock, log: logger, pollMs: config.jobPollMs });
  const owned = createOwnedDataRegistry({ uow });
  owned.register(accessOwnedData(db));
  owned.register(eventsOwnedData(db));

  const fanout = deps.fanout ?? localFanout();
  // Credentials, feature flags and settings read on every request (see platform/read-cache.ts).
  const readCache = createReadCache({
    fanout,
    inTransaction: uow.active,
    ttlMs: deps.readCacheTtlMs,
    afterCommit: (effect) => uow.afterCommit(effect),
    onPublishError: (error) => logger.warn({ err: error }, 'could not tell the other processes about a changed credential or setting'),
  });
  const accountsRepo = withReadCache(createAccountsRepo(db), readCache);
  const features = createFeatureGate(accountsRepo);
  const accounts = createAccountsService({ repo: accountsRepo, uow, sealer, clock, unverifiedKeyGraceDays: config.unverifiedKeyGraceDays });
  const provider = createPermissionProviderClient({ allowPrivateUrls: config.allowPrivateUrls, log: logger, now: clock.nowMs });
  const settingsRepo = createSettingsRepo(db, clock, readCache);
  const workspaceConfig = createWorkspaceConfigService({
    repo: settingsRepo,
    sealer,
    allowPrivateUrls: config.allowPrivateUrls,
    log: logger,
    onPermissionProviderChange: (apiKeyId) => provider.invalidate(apiKeyId),
  });
  const accessRepos = createAccessRepos(db);
  const { organizations: organizationsRepo, folders: foldersRepo, documents: documentsRepo, users: usersRepo } = accessRepos;
  const find = createAccessLookups(accessRepos);
  const ensureHeldDocument = createEnsureHeldDocument(accessRepos);
  /** What a user may do on a document, and who may read it: for content reads and notification fan-out. */
  const checks = createAccessChecks({ ...accessRepos, now: clock.now });
  const pageTokens = createPageTokens(sealer.deriveKey('page-token'));
  const signingKeys: SigningKeys = createSigningKeys({ db, uow, sealer, clock });
  const organizations = createOrganizationsService({ organizations: organizationsRepo, folders: foldersRepo, documents: documentsRepo, find, uow, features, pageTokens, owned });
  const users = createUsersService({ ...accessRepos, find, uow, pageTokens, now: clock.now });
  const permissions = createPermissionsService({
    ...accessRepos,
    find,
    uow,
    config: workspaceConfig,
    provider,
    signingKeys,
    nowSeconds: () => nowSeconds(clock),
  });
  const commentsRepo = createCommentsRepo(db);
  owned.register(commentsOwnedData(commentsRepo));
  for (const source of commentsUserData(commentsRepo)) owned.addUserDataSource(source);
  const comments = createCommentsService({
    repo: commentsRepo,
    organizations: organizationsRepo,
    documents: documentsRepo,
    users: usersRepo,
    ensureHeldDocument,
    checks, uow, events, clock, ids, pageTokens });
  const notifications = registerNotifications({
    db,
    uow,
    clock,
    ids,
    events,
    owned,
    features,
    pageTokens,
    organizations: organizationsRepo,
    documents: documentsRepo,
    users: usersRepo,
    find,
    checks,
  });
  // Email notifications: the same audience on the email channel, one durable send job per email (server/domains/email).
  registerEmail({ db, events, jobs, users: usersRepo, checks, settings: workspaceConfig, options: config.email });
  const userData = createUserDataService({ find, uow, jobs, owned, pageTokens });
  const migrations = createMigrationsService({ organizations: organizationsRepo, documents: documentsRepo, find, uow, jobs, owned });

  // Activity logs and recordings: their tables in the owned-data registry, recordings in Get All User Data,
  // and the projection that logs every domain event except activity.add (see contract/activities/triggers.ts).
  const activitiesRepo = createActivitiesRepo(db);
  const recordingsRepo = createRecordingsRepo(db);
  owned.register(activitiesOwnedData(activitiesRepo));
  owned.register(recordingsOwnedData(recordingsRepo));
  owned.addUserDataSource(recordingsUserData(recordingsRepo));
  events.project(PROJECTED_EVENT_TYPES, 'activities', activityProjection({ repo: activitiesRepo, config: workspaceConfig, ids }));
  const activities = createActivitiesService({ repo: activitiesRepo, find, config: workspaceConfig, uow, events, pageTokens, ids, clock });
  const recordings = createRecordingsService({ repo: recordingsRepo, find, uow, events, pageTokens, ids, clock });

  // Collaborative documents: one store of editor documents, which the live Hocuspocus documents (served over
  // WebSocket once the HTTP server attaches the hub) and the REST operations both load and save through; the
  // REST operations reach the live documents as the domain's LiveDocuments, which the hub provides.
  const crdtRepo = createCrdtRepo(db);
  const crdtStore = createCrdtStore({ repo: crdtRepo, find, documents: documentsRepo, ensureHeldDocument, uow, events, clock });
  const realtime = createRealtimeHub({
    options: {
      redisUrl: config.redisUrl,
      ...config.realtime,
      restIdleMs: 5_000,
      maxMessageBytes: config.bodyLimitBytes,
      saveRetryDelayMs: 500,
    },
    log: logger,
    clock,
    uow,
    store: crdtStore,
    signingKeys,
    access: createConnectionAccess({
      checks,
      usesPermissionProvider: async (apiKeyId) => (await workspaceConfig.permissionProviderTarget(apiKeyId)) !== null,
      nowSeconds: () => nowSeconds(clock),
    }),
    fanout,
  });
  owned.register(crdtOwnedData(crdtRepo, realtime));
  const crdt = createCrdtService({ store: crdtStore, live: realtime, uow, clock });

  // Live state and presence: stored rows, delivered to connected clients on every process through the fan-out
  // (stateless messages and awareness states), and the WebSocket users of each document for Get Presence.
  const liveStateRepo = createLiveStateRepo(db);
  owned.register(liveStateOwnedData(liveStateRepo));
  const liveStateDelivery = createLiveStateDelivery({ live: realtime, fanout, repo: liveStateRepo, uow, log: logger });
  const liveState = createLiveStateService({ repo: liveStateRepo, find, uow, clock, delivery: liveStateDelivery });
  const presenceRepo = createPresenceRepo(db);
  const presenceAwareness = createPresenceAwareness({ live: realtime, fanout, repo: presenceRepo, uow, log: logger });
  owned.register(presenceOwnedData(presenceRepo, presenceAwareness));
  const connectedUsers = createConnectedUsers({ live: realtime, directory: deps.presenceDirectory ?? localPresenceDirectory(), clock, log: logger });
  const presence = createPresenceService({ repo: presenceRepo, find, uow, clock, awareness: presenceAwareness, connected: connectedUsers });

  // Advanced webhooks: every event of an application with webhooks on becomes a message with a delivery per
  // matching endpoint (a projection, so in the event's transaction), delivered by this process's dispatcher.
  const webhookSettings = createWebhookSettings(settingsRepo);
  const webhookEndpointsRepo = createWebhookEndpointsRepo(db);
  const webhookMessagesRepo = createWebhookMessagesRepo(db);
  const webhookDispatcher = createWebhookDispatcher({
    repo: createDeliveryQueueRepo(db),
    messagesRepo: webhookMessagesRepo,
    uow,
    ids,
    clock,
    log: logger,
    events,
    sealer,
    apiKeyOf: (apiKeyId) => accounts.apiKeyOf(apiKeyId),
    allowPrivateUrls: config.allowPrivateUrls,
    options: config.webhooks,
    metrics,
  });
  const webhookMessages = createWebhookMessages({
    repo: webhookMessagesRepo,
    endpointsRepo: webhookEndpointsRepo,
    uow,
    ids,
    clock,
    settings: webhookSettings,
    wake: () => webhookDispatcher.wake(),
  });
  events.project('*', 'webhooks', webhookMessages.projection);
  const webhookEndpoints = createWebhookEndpoints({
    repo: webhookEndpointsRepo,
    uow,
    ids,
    clock,
    sealer,
    settings: webhookSettings,
    messages: webhookMessages,
    pageTokens,
    allowPrivateUrls: config.allowPrivateUrls,
    log: logger,
  });
  const webhookHistory = createWebhookHistory({
    repo: createWebhookHistoryRepo(db),
    uow,
    clock,
    pageTokens,
    endpoints: webhookEndpoints,
    apiKeyOf: (apiKeyId) => accounts.apiKeyOf(apiKeyId),
    wake: () => webhookDispatcher.wake(),
  });
  owned.register(webhooksOwnedData(webhookMessagesRepo));

  // Ask AI: the calling application's provider key, read and opened per call (keys are set with the CLI's `ai-key set`).
  const ai = createAiService({
    sealedKeyOf: (apiKeyId, provider) => accountsRepo.sealedAiKeyOf(apiKeyId, provider),
    sealer,
    options: config.ai,
    log: logger,
  });

  // Decision memory: judgments in the owned-data registry and Get All User Data, searched through an
  // in-memory index per application that each process rebuilds when the application's revision moves.
  const judgmentsRepo = createJudgmentsRepo(db);
  owned.register(memoryOwnedData(judgmentsRepo));
  owned.addUserDataSource(memoryUserData(judgmentsRepo));
  const judgmentIndexes = createJudgmentIndexCache({ repo: judgmentsRepo, capacity: config.memoryIndexApplications, log: logger });
  const memory = createMemoryService({ repo: judgmentsRepo, indexes: judgmentIndexes, uow, pageTokens, ids, clock });

  // Agents: built-in agents from the catalog in code, custom agents with versioned configurations
  // (secrets sealed), and groups. Nothing here runs an agent.
  const agentsRepo = createAgentsRepo(db);
  const agents = createAgentsService({ repo: agentsRepo, uow, secrets: createAgentSecrets(sealer), pageTokens, ids, clock, limits: deps.agentLimits });
  const agentGroups = createAgentGroups({ repo: agentsRepo, uow, ids, clock, limits: deps.agentLimits });

  // Gauges read at scrape time, each from the module that owns the state.
  metrics.watch(
    {
      jobs: () => jobs.queueStats(),
      webhookBacklog: () => webhookDispatcher.backlog(),
      pool: () => poolOfClient(db),
      realtime: () => realtime.stats(),
    },
    logger,
    clock.nowMs,
  );

  return {
    metrics,
    readCache,
    ai,
    judgmentIndexes,
    memory,
    agents,
    agentGroups,
    webhookSettings,
    webhookDispatcher,
    webhookMessages,
    webhookEndpoints,
    webhookHistory,
    realtime,
    crdt,
    liveState,
    presence,
    presenceAwareness,
    connectedUsers,
    clock,
    ids,
    events,
    eventRetention,
    jobs,
    owned,
    features,
    accounts,
    provider,
    workspaceConfig,
    accessRepos,
    checks,
    pageTokens,
    signingKeys,
    organizations,
    users,
    permissions,
    comments,
    notifications,
    activities,
    recordings,
    userData,
    migrations,
  };
}

export type Services = ReturnType<typeof createServices>;
