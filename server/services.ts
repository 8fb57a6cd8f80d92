import type { Logger } from 'pino';
import type { Config } from './config.js';
import { poolOfClient, type Db } from './db/client.js';
import type { UnitOfWork } from './db/unit-of-work.js';
import { accessModule } from './domains/access/module.js';
import { accountsModule } from './domains/accounts/module.js';
import { activitiesModule } from './domains/activities/module.js';
import type { AgentLimits } from './domains/agents/limits.js';
import { agentsModule } from './domains/agents/module.js';
import { runStages } from './domains/agents/run/stages.js';
import { suggestionsThrough } from './domains/agents/run/suggestions.js';
import { aiModule } from './domains/ai/module.js';
import { commentsModule } from './domains/comments/module.js';
import { crdtModule } from './domains/crdt/module.js';
import { liveStateModule } from './domains/live-state/module.js';
import { memoryModule } from './domains/memory/module.js';
import { migrationsModule } from './domains/migrations/module.js';
import { notificationsModule } from './domains/notifications/module.js';
import { organizationsModule } from './domains/organizations/module.js';
import { permissionsModule } from './domains/permissions/module.js';
import { presenceModule } from './domains/presence/module.js';
import { recordingsModule } from './domains/recordings/module.js';
import { userDataModule } from './domains/user-data/module.js';
import { usersModule } from './domains/users/module.js';
import { webhooksModule } from './domains/webhooks/module.js';
import { workspaceModule } from './domains/workspace/module.js';
import { workflowsModule } from './domains/workflows/module.js';
import { nowSeconds, type Clock } from './lib/clock.js';
import { createPublicUrl } from './lib/public-url.js';
import type { Sealer } from './lib/crypto.js';
import { createIds } from './lib/ids.js';
import { createPageTokens } from './lib/page-token.js';
import { createEventBus } from './platform/events.js';
import { eventsOwnedData } from './platform/events-owned-data.js';
import { createEventRetention } from './platform/events-retention.js';
import { createJobs } from './platform/jobs.js';
import { createMetrics, type Metrics } from './platform/metrics.js';
import type { DomainModule, Platform } from './platform/module.js';
import { createOwnedDataRegistry } from './platform/owned-data.js';
import { createReadCache } from './platform/read-cache.js';
import { localFanout, type Fanout } from './platform/fanout.js';
import { createConnectionAccess } from './realtime/connection-access.js';
import { createRealtimeHub } from './realtime/hub.js';
import type { SharedDocumentsFor } from './realtime/shared-documents.js';
import { localPresenceDirectory, type PresenceDirectory } from './platform/presence-directory.js';

/** What every entry point (HTTP server, CLI, job worker, real-time layer) starts from. */
export interface CoreDeps {
  /** Cross-process real-time messages (Redis with REDIS_URL); default: this process only. */
  fanout?: Fanout;
  /** Where each process reports its WebSocket users for the others' Get Presence (Redis with REDIS_URL); default: this process only. */
  presenceDirectory?: PresenceDirectory;
  /** Live documents synced with the other processes (Hocuspocus's Redis extension with REDIS_URL); default: this process only. */
  sharedDocuments?: SharedDocumentsFor;
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
 * The one composition root: the platform pieces, then every domain module
 * in order (each taking what earlier ones returned), then one place that
 * registers what the modules hand back: owned data, Get All User Data
 * sources and projections, in module order. The HTTP app, the CLI and the
 * real-time layer take what they need from the result: services, never a
 * domain's repos.
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
  const fanout = deps.fanout ?? localFanout();
  // Credentials, feature flags and settings read on every request (see platform/read-cache.ts).
  const readCache = createReadCache({
    fanout,
    inTransaction: uow.active,
    transaction: uow.scope,
    ttlMs: deps.readCacheTtlMs,
    afterCommit: (effect) => uow.afterCommit(effect),
    onPublishError: (error) => logger.warn({ err: error }, 'could not tell the other processes about a changed credential or setting'),
  });
  const pageTokens = createPageTokens(sealer.deriveKey('page-token'));
  const p: Platform = { config, db, uow, sealer, logger, clock, ids, events, jobs, owned, fanout, readCache, pageTokens, metrics };

  // The modules, in order. The order is the registration order below: owned data moves and erases in it
  // (content after access), and projections run in it inside the event's transaction.
  const accounts = accountsModule(p);
  const workspace = workspaceModule(p);
  const access = accessModule(p);
  const { workspaceConfig } = workspace.services;
  // The outbox: an event's rows go with its document, after the access model's.
  const eventLog = { services: {}, ownedData: [eventsOwnedData(db)] } satisfies DomainModule;
  const organizations = organizationsModule(p, { access: access.shared, features: accounts.services.features });
  const users = usersModule(p, { access: access.shared });
  const permissions = permissionsModule(p, { access: access.shared, applications: accounts.shared.applicationDigests, workspaceConfig, provider: workspace.shared.provider });
  const comments = commentsModule(p, { access: access.shared });
  // Email is a channel of notifications: the same repo and audience, one durable send job per email.
  const notifications = notificationsModule(p, { access: access.shared, features: accounts.services.features, workspaceConfig });
  const userData = userDataModule(p, { access: access.shared });
  const migrations = migrationsModule(p, { access: access.shared });
  const activities = activitiesModule(p, { access: access.shared, workspaceConfig });
  const recordings = recordingsModule(p, { access: access.shared });
  // The real-time layer: Hocuspocus over the CRDT store, served over WebSocket once the HTTP server attaches it.
  const crdt = crdtModule(p, {
    access: access.shared,
    live: (store) =>
      createRealtimeHub({
        options: {
          ...config.realtime,
          restIdleMs: 5_000,
          maxMessageBytes: config.bodyLimitBytes,
          saveRetryDelayMs: 500,
        },
        log: logger,
        clock,
        uow,
        store,
        signingKeys: permissions.services.signingKeys,
        access: createConnectionAccess({
          checks: access.shared.checks,
          usesPermissionProvider: async (apiKeyId) => (await workspaceConfig.permissionProviderTarget(apiKeyId)) !== null,
          nowSeconds: () => nowSeconds(clock),
        }),
        fanout,
        sharedDocuments: deps.sharedDocuments,
      }),
  });
  const realtime = crdt.shared.live;
  // Live state and presence reach connected clients on every process through the hub and the fan-out.
  const liveState = liveStateModule(p, { access: access.shared, live: realtime });
  const presence = presenceModule(p, { access: access.shared, live: realtime, directory: deps.presenceDirectory ?? localPresenceDirectory() });
  const webhooks = webhooksModule(p, { settings: workspace.shared.settings, accounts: accounts.services.accounts });
  const ai = aiModule(p, { sealedAiKeyOf: accounts.shared.sealedAiKeyOf });
  const memory = memoryModule(p);
  const agents = agentsModule(p, {
    limits: deps.agentLimits,
    access: access.shared,
    ai: ai.services.ai,
    suggestions: suggestionsThrough(comments.services.agentSuggestions),
    stages: runStages,
  });
  const publicUrl = createPublicUrl(config.publicUrl);
  const workflows = workflowsModule(p, {
    access: access.shared,
    agentRuns: agents.services.agentRuns,
    agentExists: agents.shared.agentExists,
    notifications: notifications.services.notifications,
    apiKeyOf: (apiKeyId) => accounts.services.accounts.apiKeyOf(apiKeyId),
    publicUrl: () => publicUrl.get(),
  });

  const modules: DomainModule[] = [
    accounts, workspace, access, eventLog, organizations, users, permissions, comments, notifications,
    userData, migrations, activities, recordings, crdt, liveState, presence, webhooks, ai, memory, agents, workflows,
  ];
  for (const module of modules) {
    for (const entry of module.ownedData ?? []) owned.register(entry);
    for (const source of module.userData ?? []) owned.addUserDataSource(source);
    for (const { types, name, fn } of module.projections ?? []) events.project(types, name, fn);
  }
  const sealedColumns = modules.flatMap((module) => module.sealed ?? []);

  // Gauges read at scrape time, each from the module that owns the state.
  metrics.watch(
    {
      jobs: () => jobs.queueStats(),
      webhookBacklog: () => webhooks.services.webhookDispatcher.backlog(),
      pool: () => poolOfClient(db),
      realtime: () => realtime.stats(),
    },
    logger,
    clock.nowMs,
  );

  return {
    metrics,
    clock,
    ids,
    events,
    eventRetention,
    jobs,
    owned,
    /** Every column holding values sealed with the master key: what `master-key rotate` seals again. */
    sealedColumns,
    /**
     * Forgets every credential, feature flag and setting this process has cached, as a change
     * announced by another process would. For a writer that bypasses the services and cannot
     * announce its change (tests after an in-process CLI run or a raw settings write).
     */
    forgetCachedReads: () => readCache.dropAll(),
    /** Where third parties reach this server; the HTTP server tells it the address it listens on. */
    publicUrl,
    ...accounts.services,
    ...workspace.services,
    ...organizations.services,
    ...users.services,
    ...permissions.services,
    ...comments.services,
    ...notifications.services,
    ...userData.services,
    ...migrations.services,
    ...activities.services,
    ...recordings.services,
    ...crdt.services,
    realtime,
    ...liveState.services,
    ...presence.services,
    ...webhooks.services,
    ...ai.services,
    ...memory.services,
    ...agents.services,
    ...workflows.services,
  };
}

export type Services = ReturnType<typeof createServices>;
