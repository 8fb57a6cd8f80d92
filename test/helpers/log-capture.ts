import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino, { type DestinationStream, type Logger } from 'pino';
import { REQUEST_FIELDS } from '../../server/http/logging.js';

// Every test server logs to a file per worker process under one directory
// made by test/global-setup.ts; every credential the suite creates is
// recorded next to them; the teardown scans the logs for each one.

const SECRETS_PREFIX = 'secrets-';
const LOG_PREFIX = 'server-';

export const SECRET_KINDS = [
  'API key',
  'auth token',
  'workspace auth token',
  'provider key',
  'user JWT',
  'webhook signing secret',
  'metrics token',
  // Stored through the REST interface (test/security/secrets.test.ts records them).
  'email provider key',
  'permission provider token',
  'agent secret',
] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

function logDir(): string | undefined {
  return process.env.COLLAB_TEST_LOG_DIR;
}

/**
 * The test server's logger: at debug, so every request line is written (also to `also`, for a test that reads its own
 * lines), with the request fields of the process logger (not its redaction: the scan must see what the server itself logs).
 */
export function captureLogger(also?: DestinationStream): Logger {
  const dir = logDir();
  const file = dir ? pino.destination({ dest: join(dir, `${LOG_PREFIX}${process.pid}.log`), sync: true, append: true }) : undefined;
  const streams = [file, also].filter((stream): stream is DestinationStream => stream !== undefined);
  if (streams.length === 0) return pino({ level: 'silent' });
  return pino(
    { level: 'debug', ...REQUEST_FIELDS },
    streams.length === 1 ? streams[0] : pino.multistream(streams.map((stream) => ({ stream, level: 'debug' as const }))),
  );
}

/** The test servers' logger (the end-of-run log scan reads its file) that also writes into an array. */
export function memoryLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter((line) => line !== ''));
      done();
    },
  });
  return { logger: captureLogger(stream), lines };
}

// Credentials the service issues are 30+ random characters. Shorter values are
// test data, such as the hostile-input tests' IDs ("organization", "folders")
// sent as a permission provider's auth token, which would "leak" by matching
// ordinary paths in other files' logs.
const MIN_SECRET_LENGTH = 16;

export function recordSecret(kind: SecretKind, value: string): void {
  const dir = logDir();
  if (!dir || value.length < MIN_SECRET_LENGTH || value === '__redacted__') return;
  appendFileSync(join(dir, `${SECRETS_PREFIX}${process.pid}.jsonl`), `${JSON.stringify({ kind, value })}\n`);
}

const FIELD_KINDS: Record<string, SecretKind> = { apiKey: 'API key', authToken: 'auth token', workspaceAuthToken: 'workspace auth token' };
const JWT = /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g;
const FIELD = /"(apiKey|authToken|workspaceAuthToken)":"([^"]+)"/g;
/** What Get and Rotate Advanced Webhook Endpoint Secret return. */
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9+/]+=*/g;

/** Records the credentials found in a CLI output or a response body. */
export function recordSecretsIn(text: string): void {
  for (const [, field, value] of text.matchAll(FIELD)) recordSecret(FIELD_KINDS[field!]!, value!);
  for (const [token] of text.matchAll(JWT)) recordSecret('user JWT', token);
  for (const [secret] of text.matchAll(WEBHOOK_SECRET)) recordSecret('webhook signing secret', secret);
}

export interface ScanResult {
  secrets: number;
  logLines: number;
  requestLines: number;
  /** Kinds of secret found in a log, with how many of each; never the secrets themselves. */
  leaks: Partial<Record<SecretKind, number>>;
  /** Kinds of which no value was recorded: the scan proved nothing about them. */
  unrecorded: SecretKind[];
}

/** Looks for every recorded secret in every captured log line. */
export function scanLogs(dir: string): ScanResult {
  const files = readdirSync(dir);
  const secrets = new Map<string, SecretKind>();
  const recorded = new Set<SecretKind>();
  for (const file of files.filter((f) => f.startsWith(SECRETS_PREFIX))) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      if (line === '') continue;
      const { kind, value } = JSON.parse(line) as { kind: SecretKind; value: string };
      secrets.set(value, kind);
      // Every kind recorded, even when the same value was also recorded under another kind (a permission
      // provider's token comes back in a response's "authToken" field and is recorded as an auth token too).
      recorded.add(kind);
    }
  }
  const lines = files
    .filter((f) => f.startsWith(LOG_PREFIX))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'))
    .filter((line) => line !== '');
  const leaks: ScanResult['leaks'] = {};
  for (const [value, kind] of secrets) {
    if (lines.some((line) => line.includes(value))) leaks[kind] = (leaks[kind] ?? 0) + 1;
  }
  return {
    secrets: secrets.size,
    logLines: lines.length,
    requestLines: lines.filter((l) => l.includes('"request completed"')).length,
    leaks,
    unrecorded: SECRET_KINDS.filter((kind) => !recorded.has(kind)),
  };
}
