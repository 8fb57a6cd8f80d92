import { dirname } from 'node:path';
import { ConfigError } from './lib/config-error.js';
import { trustProxyFrom, type TrustProxy } from './http/trust-proxy.js';
import type { ResponseValidation } from './http/response-check.js';
import { DEFAULT_DATABASE_URL, DEFAULT_POOL_SIZE, DEFAULT_STATEMENT_TIMEOUT_MS, providerOf, sqlitePath, type Provider } from './db/adapter.js';

/** Agent runs (server/domains/agents/run): the limits and deadlines of Run Agent. */
export interface AgentRunConfig {
  /** Runs of one application at once (AGENT_MAX_CONCURRENT_RUNS); past it Run Agent is RESOURCE_EXHAUSTED. */
  maxConcurrentRuns: number;
  /** Runs this process works on at once (AGENT_WORKERS), beside the other jobs. */
  workers: number;
  /** One deadline for a whole run (AGENT_RUN_TIMEOUT_MS); past it the run ends `error` TIMEOUT. */
  runTimeoutMs: number;
  /** Each fetch of a page, a link, a robots.txt (AGENT_FETCH_TIMEOUT_MS). */
  fetchTimeoutMs: number;
  /** All the work on one page: its fetches, its model or tool calls (AGENT_PAGE_TIMEOUT_MS); past it the page ends `error` TIMEOUT. */
  pageTimeoutMs: number;
  /** Bytes read of a page at most (AGENT_MAX_PAGE_BYTES); the rest is dropped. */
  maxPageBytes: number;
}

/** Everything the server reads from the environment, parsed once at start. */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /** PostgreSQL connections per process. */
  databasePoolSize: number;
  /**
   * PostgreSQL cancels any one statement of the server's connections running
   * longer than this (0 = no limit). SQLite has no equivalent: its bound is
   * the 5 s a write waits for another connection's lock (SQLITE_BUSY_WAIT_MS, db/sqlite-gate.ts).
   */
  databaseStatementTimeoutMs: number;
  /** Where the embedded defaults live: the SQLite file's directory, or ./data. */
  dataDir: string;
  masterKey: string | undefined;
  /** How often a running server reads the master-key state, so that it follows a rotation (lib/master-key.ts). */
  masterKeyRefreshMs: number;
  redisUrl: string | undefined;
  bodyLimitBytes: number;
  allowPrivateUrls: boolean;
  logLevel: string;
  /** Days an unverified owner email keeps its API keys working; null = forever. */
  unverifiedKeyGraceDays: number | null;
  rateLimits: RateLimitConfig;
  /** Which peers may name the client's address in X-Forwarded-For (TRUST_PROXY; http/trust-proxy.ts). */
  trustProxy: TrustProxy;
  http: HttpTimeouts;
  /**
   * How often this process's job worker looks for due jobs (it also wakes at
   * once when a request enqueues one). 0 turns the in-process worker off: for
   * tests, which drive jobs themselves, or for processes that only serve HTTP.
   */
  jobPollMs: number;
  /** Domain events (outbox rows) are kept this long (see server/platform/events-retention.ts). */
  eventRetentionDays: number;
  webhooks: WebhookConfig;
  /**
   * The address third parties reach this server at (PUBLIC_URL), for the
   * URLs it hands out: an async workflow webhook step's callback URL.
   * Unset: the address it listens on, which is right only when nothing
   * (a proxy, a load balancer) stands in front.
   */
  publicUrl: string | undefined;
  email: EmailConfig;
  ai: AiConfig;
  agents: AgentRunConfig;
  /** Applications whose judgment search index a process keeps in memory for Suggest Decision (least recently used out first). */
  memoryIndexApplications: number;
  /** When set, GET /metrics requires `Authorization: Bearer <this>`; unset, it is open to whoever reaches the port. */
  metricsToken: string | undefined;
  /** Whether answers are checked against the contract before they leave (http/response-check.ts). */
  responseValidation: ResponseValidation;
  realtime: {
    /** A changed collaborative document is saved this long after its last change… */
    saveDebounceMs: number;
    /** …and at the latest this long after its first unsaved change. */
    saveMaxDebounceMs: number;
    /** How often connected users' access is checked again: a lapsed permission ends its connection within this. */
    accessCheckMs: number;
    /** A WebSocket that has no authenticated document for this long is closed. */
    authTimeoutMs: number;
  };
}

/** Outbound webhook delivery (see server/domains/webhooks/dispatcher.ts and docs/webhooks.md). */
export interface WebhookConfig {
  /** The retry schedule's delays are multiplied by this (1 = the documented schedule; tests and staging use less). */
  retryScale: number;
  /** A try without a complete answer within this fails. */
  timeoutMs: number;
  /** Deliveries in flight per process. */
  concurrency: number;
  /** Deliveries in flight per endpoint per process, so one slow endpoint cannot take every slot. */
  perEndpointConcurrency: number;
  /** How often this process looks for due deliveries (it also wakes when a change creates messages); 0 = only when asked (tests). */
  pollMs: number;
  /** Messages (with their deliveries and attempts) are kept this long once delivered. */
  retentionDays: number;
}

/** Sending email notifications (see server/domains/email and docs/decisions.md, Email notifications). */
export interface EmailConfig {
  /** The SMTP relay of types `default` and `custom` (smtp:// or smtps://, credentials in the URL); unset: such email fails its job, with that reason. */
  smtpUrl: string | undefined;
  /** The sender when an application configured no `fromEmail` (SMTP only). */
  from: string;
  /** Where type `thirdparty` posts `/v3/mail/send` (the SendGrid v3 API); set by the operator, so trusted (no private-address guard). */
  providerBaseUrl: string;
}

/**
 * Ask AI (see server/domains/ai and docs/decisions.md, Ask AI). The base URLs
 * are set by the operator, so trusted like EMAIL_PROVIDER_BASE_URL: no
 * private-address guard (tests and self-hosted gateways are local); a
 * caller only ever chooses the model name, never where the request goes.
 */
export interface AiConfig {
  /** OpenAI's API root, with its version path (the SDK appends `/chat/completions`). */
  openaiBaseUrl: string;
  /** Anthropic's API root without `/v1` (the SDK adds `/v1/messages`). */
  anthropicBaseUrl: string;
  /** Gemini's OpenAI-compatible root (the openai SDK appends `/chat/completions`). */
  geminiBaseUrl: string;
  /** One provider call, from sending to the last byte of the answer. */
  timeoutMs: number;
  /** Anthropic's required `max_tokens`; OpenAI and Gemini get no limit field (the model's default applies). */
  maxOutputTokens: number;
}

/**
 * Socket limits so slow or stalled clients cannot hold connections forever
 * (see the configuration table of docs/operations.md).
 */
export interface HttpTimeouts {
  /** All request headers must arrive within this. */
  headersTimeoutMs: number;
  /** The whole request, body included, must arrive within this. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
}

/** Requests per window for each named tier (see server/http/rate-limits.ts). */
export interface RateLimitConfig {
  windowMs: number;
  standardPerApiKey: number;
  emailStatusPerIp: number;
  emailStatusPerEmail: number;
  /** Ask AI calls per application, on top of the standard tier: each one spends the application's provider credit. */
  aiPerApiKey: number;
  /**
   * Failed authentications (missing or wrong credentials) per client address
   * in a window; past it, that address's further failures are answered 429
   * instead of 401/403 until the window ends. Only failures are counted and
   * only failures are refused: a valid credential always passes, so a flood
   * of wrong tokens from one address (or from behind the same proxy) cannot
   * lock its legitimate clients out. Credentials are 192+ random bits, so
   * this is not about guessing: it makes a flood of fake keys visible and
   * slow to probe with. 300 a minute (5/s) leaves room for several broken
   * clients behind one NAT address, and for a test run's deliberate failures.
   */
  failedAuthPerIp: number;
}

export { ConfigError };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const provider = checkedProvider(databaseUrl);
  const logLevel = env.LOG_LEVEL || 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);
  }
  const headersTimeoutMs = intFrom(env, 'HTTP_HEADERS_TIMEOUT_MS', 20_000, 1);
  // Both AI SDKs add these headers to every request whatever the client's options, after the
  // credentials: the operator's headers (or key) would ride along on every application's call.
  for (const name of ['OPENAI_CUSTOM_HEADERS', 'ANTHROPIC_CUSTOM_HEADERS']) {
    if (env[name]) {
      throw new ConfigError(`${name} is set: the AI SDKs would send its headers with every application's Ask AI call (the value is not shown); unset it`);
    }
  }
  return {
    port: intFrom(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '127.0.0.1',
    databaseUrl,
    databasePoolSize: intFrom(env, 'DATABASE_POOL_SIZE', DEFAULT_POOL_SIZE, 1, 1000),
    databaseStatementTimeoutMs: intFrom(env, 'DATABASE_STATEMENT_TIMEOUT_MS', DEFAULT_STATEMENT_TIMEOUT_MS, 0, 86_400_000),
    dataDir: env.COLLAB_DATA_DIR || (provider === 'sqlite' ? dirname(sqlitePath(databaseUrl)) : './data'),
    masterKey: env.COLLAB_MASTER_KEY,
    masterKeyRefreshMs: intFrom(env, 'MASTER_KEY_REFRESH_MS', 10_000, 100, 3_600_000),
    redisUrl: env.REDIS_URL || undefined,
    bodyLimitBytes: intFrom(env, 'BODY_LIMIT_BYTES', 5 * 1024 * 1024, 1),
    allowPrivateUrls: env.WEBHOOK_ALLOW_PRIVATE_URLS === 'true',
    logLevel,
    unverifiedKeyGraceDays: env.UNVERIFIED_KEY_GRACE_DAYS ? intFrom(env, 'UNVERIFIED_KEY_GRACE_DAYS', 0, 0) : null,
    rateLimits: {
      windowMs: 60_000,
      standardPerApiKey: intFrom(env, 'RATE_LIMIT_PER_MINUTE', 6000, 1),
      emailStatusPerIp: intFrom(env, 'EMAIL_STATUS_LIMIT_PER_IP', 30, 1),
      emailStatusPerEmail: intFrom(env, 'EMAIL_STATUS_LIMIT_PER_EMAIL', 10, 1),
      aiPerApiKey: intFrom(env, 'AI_RATE_LIMIT_PER_MINUTE', 60, 1),
      failedAuthPerIp: intFrom(env, 'AUTH_FAILURE_LIMIT_PER_IP', 300, 1),
    },
    trustProxy: trustProxyFrom(env.TRUST_PROXY),
    http: {
      headersTimeoutMs,
      // Node refuses a request timeout shorter than the headers timeout.
      requestTimeoutMs: intFrom(env, 'HTTP_REQUEST_TIMEOUT_MS', Math.max(60_000, headersTimeoutMs), headersTimeoutMs),
      keepAliveTimeoutMs: intFrom(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000, 1),
    },
    jobPollMs: intFrom(env, 'JOB_POLL_INTERVAL_MS', 1000, 0),
    eventRetentionDays: intFrom(env, 'EVENT_RETENTION_DAYS', 30, 1, 36_500),
    publicUrl: env.PUBLIC_URL ? httpUrlFrom(env, 'PUBLIC_URL', 'https://collab.example.com').replace(/\/+$/, '') : undefined,
    webhooks: {
      retryScale: numberFrom(env, 'WEBHOOK_RETRY_SCALE', 1, 0, 1000),
      timeoutMs: intFrom(env, 'WEBHOOK_TIMEOUT_MS', 15_000, 100, 300_000),
      concurrency: intFrom(env, 'WEBHOOK_CONCURRENCY', 64, 0, 10_000),
      perEndpointConcurrency: intFrom(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 8, 1, 10_000),
      pollMs: intFrom(env, 'WEBHOOK_POLL_INTERVAL_MS', 1000, 0, 3_600_000),
      retentionDays: intFrom(env, 'WEBHOOK_RETENTION_DAYS', 30, 1, 36_500),
    },
    email: {
      smtpUrl: smtpUrlFrom(env),
      from: emailFromOf(env),
      providerBaseUrl: httpUrlFrom(env, 'EMAIL_PROVIDER_BASE_URL', 'https://api.sendgrid.com').replace(/\/+$/, ''),
    },
    ai: {
      openaiBaseUrl: httpUrlFrom(env, 'OPENAI_BASE_URL', 'https://api.openai.com/v1').replace(/\/+$/, ''),
      anthropicBaseUrl: httpUrlFrom(env, 'ANTHROPIC_BASE_URL', 'https://api.anthropic.com').replace(/\/+$/, ''),
      geminiBaseUrl: httpUrlFrom(env, 'GEMINI_BASE_URL', 'https://generativelanguage.googleapis.com/v1beta/openai/').replace(/\/+$/, ''),
      timeoutMs: intFrom(env, 'AI_TIMEOUT_MS', 60_000, 100, 600_000),
      maxOutputTokens: intFrom(env, 'AI_MAX_OUTPUT_TOKENS', 4096, 1, 1_000_000),
    },
    agents: {
      maxConcurrentRuns: intFrom(env, 'AGENT_MAX_CONCURRENT_RUNS', 5, 1, 10_000),
      workers: intFrom(env, 'AGENT_WORKERS', 4, 1, 256),
      runTimeoutMs: intFrom(env, 'AGENT_RUN_TIMEOUT_MS', 600_000, 1000, 86_400_000),
      fetchTimeoutMs: intFrom(env, 'AGENT_FETCH_TIMEOUT_MS', 15_000, 100, 600_000),
      pageTimeoutMs: intFrom(env, 'AGENT_PAGE_TIMEOUT_MS', 180_000, 100, 3_600_000),
      maxPageBytes: intFrom(env, 'AGENT_MAX_PAGE_BYTES', 5 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    },
    memoryIndexApplications: intFrom(env, 'MEMORY_INDEX_APPLICATIONS', 4, 1, 1000),
    metricsToken: metricsTokenFrom(env),
    responseValidation: responseValidationFrom(env),
    realtime: {
      saveDebounceMs: intFrom(env, 'CRDT_SAVE_DEBOUNCE_MS', 2000, 0, 60_000),
      saveMaxDebounceMs: intFrom(env, 'CRDT_SAVE_MAX_DEBOUNCE_MS', 10_000, 0, 600_000),
      accessCheckMs: intFrom(env, 'REALTIME_ACCESS_CHECK_MS', 10_000, 100, 3_600_000),
      authTimeoutMs: intFrom(env, 'REALTIME_AUTH_TIMEOUT_MS', 10_000, 100, 3_600_000),
    },
  };
}

/**
 * The provider of a DATABASE_URL, refusing one that cannot work. Messages
 * never repeat the URL: a PostgreSQL URL may hold a password.
 */
function checkedProvider(databaseUrl: string): Provider {
  let provider: Provider;
  try {
    provider = providerOf(databaseUrl);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  if (provider === 'postgresql') {
    let url: URL | undefined;
    try {
      url = new URL(databaseUrl);
    } catch {
      // Reported below.
    }
    if (!url || url.hostname === '' || url.pathname.length <= 1) {
      throw new ConfigError('DATABASE_URL is not a valid PostgreSQL URL (expected postgresql://user:password@host:port/database; the value is not shown as it may hold a password)');
    }
  } else {
    try {
      sqlitePath(databaseUrl);
    } catch (error) {
      throw new ConfigError((error as Error).message);
    }
  }
  return provider;
}

/** SMTP_URL, checked; messages never repeat it (it holds the relay's password). */
function smtpUrlFrom(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.SMTP_URL;
  if (raw === undefined || raw === '') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    // Reported below.
  }
  if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '') {
    throw new ConfigError('SMTP_URL is not a valid SMTP URL (expected smtp://user:password@host:587 or smtps://user:password@host:465; the value is not shown as it may hold a password)');
  }
  return raw;
}

/** RESPONSE_VALIDATION: `off` (the default) or `strict` (http/response-check.ts). */
function responseValidationFrom(env: NodeJS.ProcessEnv): ResponseValidation {
  const value = env.RESPONSE_VALIDATION || 'off';
  if (value !== 'off' && value !== 'strict') throw new ConfigError('RESPONSE_VALIDATION must be off or strict');
  return value;
}

/**
 * METRICS_TOKEN, checked; messages never repeat it. It travels in an
 * Authorization header (visible ASCII, no spaces) and guards a page anyone
 * who reaches the port could read, so a short one is refused.
 */
function metricsTokenFrom(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.METRICS_TOKEN;
  if (raw === undefined || raw === '') return undefined;
  if (!/^[\x21-\x7e]{16,1024}$/.test(raw)) {
    throw new ConfigError('METRICS_TOKEN must be 16 to 1024 visible ASCII characters without spaces, e.g. from `openssl rand -hex 32` (the value is not shown)');
  }
  return raw;
}

const DEFAULT_EMAIL_FROM = 'Collab Backend <no-reply@localhost>';

function emailFromOf(env: NodeJS.ProcessEnv): string {
  const raw = env.EMAIL_FROM;
  if (raw === undefined || raw === '') return DEFAULT_EMAIL_FROM;
  // A mail header: one line, and an address in it.
  if (/[\r\n]/.test(raw) || !raw.includes('@')) throw new ConfigError(`EMAIL_FROM must be one line holding an address, e.g. "Example <no-reply@example.com>" (got ${JSON.stringify(raw)})`);
  return raw;
}

function httpUrlFrom(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    // Reported below.
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.search !== '' || url.hash !== '') {
    throw new ConfigError(`${name} must be an http(s) URL without query or fragment, e.g. ${fallback} (got "${raw}")`);
  }
  return raw;
}

function numberFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a number from ${min} to ${max} (got "${raw}")`);
  }
  return value;
}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
    throw new ConfigError(`${name} must be an integer ${range} (got "${raw}")`);
  }
  return value;
}
