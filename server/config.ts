import { dirname } from 'node:path';
import { DEFAULT_DATABASE_URL, providerOf, sqlitePath } from './db/adapter.js';

/** Everything the server reads from the environment, parsed once at start. */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /** Where the embedded defaults live: the SQLite file's directory, or ./data. */
  dataDir: string;
  masterKey: string | undefined;
  redisUrl: string | undefined;
  bodyLimitBytes: number;
  allowPrivateUrls: boolean;
  logLevel: string;
  /** Days an unverified owner email keeps its API keys working; null = forever. */
  unverifiedKeyGraceDays: number | null;
  rateLimits: RateLimitConfig;
}

/** Requests per window for each named tier (see server/http/rate-limits.ts). */
export interface RateLimitConfig {
  windowMs: number;
  standardPerApiKey: number;
  emailStatusPerIp: number;
  emailStatusPerEmail: number;
  /**
   * Failed authentications (missing or wrong credentials) per client IP
   * before that IP is refused until the window ends. Credentials are 192+
   * random bits, so this is not about guessing: it bounds the work (a digest
   * and an indexed read) a flood of rotating fake keys costs, and keeps each
   * fake key from getting a fresh bucket. A correct client never fails; 300
   * a minute (5/s) leaves room for several broken clients behind one NAT
   * address before the address is cut off, and for a test run's deliberate
   * failures.
   */
  failedAuthPerIp: number;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const provider = providerOf(databaseUrl);
  return {
    port: intFrom(env, 'PORT', 8080, 0),
    host: env.HOST || '127.0.0.1',
    databaseUrl,
    dataDir: env.COLLAB_DATA_DIR || (provider === 'sqlite' ? dirname(sqlitePath(databaseUrl)) : './data'),
    masterKey: env.COLLAB_MASTER_KEY,
    redisUrl: env.REDIS_URL || undefined,
    bodyLimitBytes: intFrom(env, 'BODY_LIMIT_BYTES', 5 * 1024 * 1024, 1),
    allowPrivateUrls: env.WEBHOOK_ALLOW_PRIVATE_URLS === 'true',
    logLevel: env.LOG_LEVEL || 'info',
    unverifiedKeyGraceDays: env.UNVERIFIED_KEY_GRACE_DAYS ? intFrom(env, 'UNVERIFIED_KEY_GRACE_DAYS', 0, 0) : null,
    rateLimits: {
      windowMs: 60_000,
      standardPerApiKey: intFrom(env, 'RATE_LIMIT_PER_MINUTE', 6000, 1),
      emailStatusPerIp: intFrom(env, 'EMAIL_STATUS_LIMIT_PER_IP', 30, 1),
      emailStatusPerEmail: intFrom(env, 'EMAIL_STATUS_LIMIT_PER_EMAIL', 10, 1),
      failedAuthPerIp: intFrom(env, 'AUTH_FAILURE_LIMIT_PER_IP', 300, 1),
    },
  };
}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`${name} must be an integer >= ${min} (got "${raw}")`);
  return value;
}
