import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { loadConfig, type Config } from './config.js';
import { backupDatabase, restoreDatabase } from './db/backup.js';
import { applyMigrations, migrationStatus } from './db/migrate.js';
import { repoRoot } from './db/migrations-folder.js';
import { openMigratedDatabase } from './db/startup.js';
import type { Db } from './db/client.js';
import type { UnitOfWork } from './db/unit-of-work.js';
import { createDemo } from './demo/create-demo.js';
import { createLogger } from './http/logging.js';
import { systemClock } from './lib/clock.js';
import { AppError } from './lib/app-error.js';
import { keyRefusal, loadMasterKey, openVerifiedSealer, parseKeyText, replaceKeyFile } from './lib/master-key.js';
import { graceFor, rotateMasterKey } from './platform/master-key-rotation.js';
import { startupErrorLine } from './lib/startup-error.js';
import { createServices, type Services } from './services.js';
import { DEFAULT_TTL_MS } from './platform/read-cache.js';
import { redisPublisher } from './platform/fanout.js';

/**
 * The operator CLI (the "administrative console" of the specification).
 * Prints one JSON object on stdout; diagnostics and errors go to stderr as
 * one line; exit 0 on success, 2 on bad arguments, 1 on any other failure.
 */

class UsageError extends Error {}

type Flags = Record<string, string | undefined>;

interface CommandContext {
  config: Config;
  env: NodeJS.ProcessEnv;
  db: Db;
  uow: UnitOfWork;
  /** A line of progress for the operator (stderr), for a command that runs for a while. */
  progress(line: string): void;
}

interface Command {
  summary: string;
  usage: string;
  flags: string[];
  run(services: Services, flags: Flags, context: CommandContext): Promise<unknown>;
}

const COMMANDS: Record<string, Command> = {
  'workspace create': {
    summary: 'Creates a workspace with its first application; prints its credentials (shown once).',
    usage: 'workspace create --owner-email E [--name N]',
    flags: ['owner-email', 'name'],
    run: ({ accounts: a }, f) => a.createWorkspace({ ownerEmail: need(f, 'owner-email'), name: f.name }),
  },
  'workspace verify-email': {
    summary: 'Marks the owner\'s email verified (reactivates lapsed API keys).',
    usage: 'workspace verify-email --owner-email E',
    flags: ['owner-email'],
    run: ({ accounts: a }, f) => a.verifyOwnerEmail(need(f, 'owner-email')),
  },
  'workspace get': {
    summary: 'Shows a workspace and its application, without secrets.',
    usage: 'workspace get --api-key K',
    flags: ['api-key'],
    run: ({ accounts: a }, f) => a.getWorkspace(need(f, 'api-key')),
  },
  'auth-token create': {
    summary: 'Creates another auth token for an application.',
    usage: 'auth-token create --api-key K [--name N]',
    flags: ['api-key', 'name'],
    run: ({ accounts: a }, f) => a.createAuthToken(need(f, 'api-key'), f.name),
  },
  'auth-token revoke': {
    summary: 'Revokes an auth token.',
    usage: 'auth-token revoke --api-key K --auth-token T',
    flags: ['api-key', 'auth-token'],
    run: ({ accounts: a }, f) => a.revokeAuthToken(need(f, 'api-key'), need(f, 'auth-token')),
  },
  'ai-key set': {
    summary: 'Stores an AI provider key for an application (sealed at rest).',
    usage: 'ai-key set --api-key K --provider openai|anthropic|gemini --key SECRET',
    flags: ['api-key', 'provider', 'key'],
    run: ({ accounts: a }, f) => a.setAiKey(need(f, 'api-key'), need(f, 'provider'), need(f, 'key')),
  },
  'feature set': {
    summary: 'Turns a feature on or off for an application.',
    usage: 'feature set --api-key K --name advancedQueries|notifications --enabled true|false',
    flags: ['api-key', 'name', 'enabled'],
    run: ({ accounts: a }, f) => a.setFeature(need(f, 'api-key'), need(f, 'name'), bool(need(f, 'enabled'), 'enabled')),
  },
  'signing-key rotate': {
    summary: 'Starts signing user tokens with a new key; the old one stays published until its tokens expire.',
    usage: 'signing-key rotate --api-key K',
    flags: ['api-key'],
    run: async ({ accounts, signingKeys }, f) => {
      const { apiKey } = await accounts.getWorkspace(need(f, 'api-key'));
      return signingKeys.rotate(apiKey.id);
    },
  },
  'master-key rotate': {
    summary:
      'Seals every stored secret again with a new master key (from --new-key-file or COLLAB_NEW_MASTER_KEY) while the servers keep serving; resumable. Then restart each server with the new key.',
    usage: 'master-key rotate [--new-key-file FILE]',
    flags: ['new-key-file'],
    run: async (services, f, { config, env, db, uow, progress }) => {
      const next = newMasterKey(f['new-key-file'], env.COLLAB_NEW_MASTER_KEY);
      const current = loadMasterKey({ envValue: config.masterKey, dataDir: config.dataDir });
      // With no COLLAB_MASTER_KEY the key file is the key: it becomes the new one just before the database's
      // check does (both keys work until then, so a crash in between leaves a rotation to resume).
      const usesKeyFile = config.masterKey === undefined || config.masterKey === '';
      let keyFile: string | undefined;
      const result = await rotateMasterKey(
        {
          db,
          uow,
          clock: systemClock,
          columns: services.sealedColumns,
          graceMs: graceFor(config.masterKeyRefreshMs),
          progress,
          beforeCommit: () => void (keyFile = usesKeyFile ? replaceKeyFile(config.dataDir, next) : undefined),
        },
        { current, next },
      );
      return { ...result, ...(keyFile ? { keyFile } : {}) };
    },
  },
  demo: {
    summary:
      'Creates a new workspace filled with sample organizations, documents, users, comments and notifications, in one transaction; prints its credentials, the IDs and curl lines to try.',
    usage: 'demo [--owner-email E] [--base-url URL]',
    flags: ['owner-email', 'base-url'],
    run: (services, f, { config, uow }) => {
      // Checked before anything is written.
      const baseUrl = baseUrlOf(f['base-url'], config);
      return createDemo(services, uow, { ownerEmail: f['owner-email'] || undefined, baseUrl });
    },
  },
};

const DB_COMMANDS: Record<string, { summary: string; usage: string; run(databaseUrl: string): Promise<unknown> }> = {
  'db migrate': { summary: 'Applies pending database migrations (the server also does this at start).', usage: 'db migrate', run: (url) => applyMigrations(url) },
  'db status': { summary: 'Compares the applied migrations with the ones this version ships.', usage: 'db status', run: (url) => migrationStatus(url) },
};

/** Commands on the database file itself, which take one file argument. */
const FILE_COMMANDS: Record<string, { summary: string; usage: string; run(config: Config, file: string): Promise<unknown> }> = {
  backup: {
    summary: 'Writes a consistent snapshot of the SQLite database to a new FILE while the servers keep serving (on PostgreSQL: names the pg_dump command).',
    usage: 'backup FILE',
    run: async (config, file) => backupDatabase(config.databaseUrl, file),
  },
  restore: {
    summary: 'Replaces the SQLite database with a backup, every server stopped; refuses a FILE this master key cannot open (on PostgreSQL: names the pg_restore command).',
    usage: 'restore FILE',
    run: async (config, file) => restoreDatabase(config.databaseUrl, file, (probe) => keyRefusal({ envValue: config.masterKey, dataDir: config.dataDir }, probe)),
  },
};

const ALL_COMMANDS: Record<string, { summary: string; usage: string }> = { ...COMMANDS, ...DB_COMMANDS, ...FILE_COMMANDS };

export const USAGE = Object.values(ALL_COMMANDS).map((c) => `  ${c.usage}`).join('\n');

const HELP = [
  'usage: npm run --silent cli -- <command> [flags]',
  '',
  'Operator commands against the database of DATABASE_URL (see docs/operations.md).',
  'Each prints one JSON object on stdout; errors are one line on stderr.',
  'Exit codes: 0 success, 1 failure, 2 bad arguments.',
  '',
  'commands:',
  ...Object.values(ALL_COMMANDS).map((c) => `  ${c.usage}\n      ${c.summary}`),
  '',
  '  help [command]   this text, or one command\'s',
  '  --version        the server version',
  '',
].join('\n');

/** The command that `argv` starts with: two words (`workspace create`) or one (`demo`). */
function commandNamed<C>(commands: Record<string, C>, argv: string[]): { command: C; words: number } | undefined {
  for (const words of [2, 1]) {
    if (argv.length < words) continue;
    const command = commands[argv.slice(0, words).join(' ')];
    if (command) return { command, words };
  }
  return undefined;
}

function version(): string {
  return (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
}

/** `--help`, `help [command]` and `--version` answer without touching the database or the environment. */
function answerMeta(argv: string[]): CliResult | undefined {
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-v') return { code: 0, stdout: `${version()}\n`, stderr: '' };
  if (first === '--help' || first === '-h' || (first === 'help' && rest.length === 0)) return { code: 0, stdout: HELP, stderr: '' };
  if (first === 'help') {
    const found = rest.length <= 2 ? commandNamed(ALL_COMMANDS, rest) : undefined;
    const command = found && found.words === rest.length ? found.command : undefined;
    if (!command) return { code: 2, stdout: '', stderr: `error: unknown command "${rest.join(' ')}"; commands:\n${USAGE}\n` };
    return { code: 0, stdout: `usage: ${command.usage}\n${command.summary}\n`, stderr: '' };
  }
  if (argv.includes('--help') || argv.includes('-h')) {
    const found = commandNamed(ALL_COMMANDS, argv);
    return answerMeta(['help', ...(found ? argv.slice(0, found.words) : argv.filter((a) => !a.startsWith('-')).slice(0, 2))]);
  }
  return undefined;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one CLI invocation; separated from process I/O so tests can call it in-process. */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv = process.env, options: { progress?: (line: string) => void } = {}): Promise<CliResult> {
  const meta = answerMeta(argv);
  if (meta) return meta;
  try {
    const name = argv.slice(0, 2).join(' ');
    const config = loadConfig(env);
    const dbCommand = DB_COMMANDS[name];
    if (dbCommand) {
      if (argv.length > 2) throw new UsageError(`unexpected argument "${argv[2]}"; usage: ${dbCommand.usage}`);
      return success(await dbCommand.run(config.databaseUrl));
    }
    const fileCommand = Object.hasOwn(FILE_COMMANDS, argv[0] ?? '') ? FILE_COMMANDS[argv[0]!] : undefined;
    if (fileCommand) {
      const [file, extra] = argv.slice(1);
      if (file === undefined || file === '' || file.startsWith('-') || extra !== undefined) throw new UsageError(`usage: ${fileCommand.usage}`);
      return success(await fileCommand.run(config, file));
    }
    const found = commandNamed(COMMANDS, argv);
    if (!found) throw new UsageError(argv.length === 0 ? `a command is required; commands:\n${USAGE}` : `unknown command "${name}"; commands:\n${USAGE}`);
    const { command } = found;
    const flags = parseFlags(argv.slice(found.words), command);

    const { database } = await openMigratedDatabase(config.databaseUrl, { poolSize: config.databasePoolSize, statementTimeoutMs: config.databaseStatementTimeoutMs });
    let unsent = false;
    try {
      const sealer = await openVerifiedSealer(database.db, { envValue: config.masterKey, dataDir: config.dataDir }, systemClock);
      // Diagnostics only to stderr: stdout carries the one JSON answer.
      const logger = createLogger('silent');
      // A revoked token or changed setting reaches the running servers' caches at once through Redis.
      const fanout = config.redisUrl ? await redisPublisher(config.redisUrl, () => (unsent = true)) : undefined;
      try {
        const services = createServices({ config, db: database.db, uow: database.uow, sealer, logger, clock: systemClock, fanout });
        const progressLines: string[] = [];
        const progress = options.progress ?? ((line: string) => progressLines.push(line));
        const result = success(await command.run(services, flags, { config, env, db: database.db, uow: database.uow, progress }));
        if (progressLines.length > 0) result.stderr = progressLines.map((line) => `${line}\n`).join('');
        await fanout?.close();
        if (unsent) result.stderr += `warning: could not reach REDIS_URL; running servers see this change within ${DEFAULT_TTL_MS / 1000} s\n`;
        return result;
      } finally {
        await fanout?.close();
      }
    } finally {
      await database.close();
    }
  } catch (error) {
    if (error instanceof UsageError) return { code: 2, stdout: '', stderr: `error: ${error.message}\n` };
    if (error instanceof AppError) return { code: 1, stdout: '', stderr: `error: ${error.status}: ${error.message}\n` };
    return { code: 1, stdout: '', stderr: `error: ${startupErrorLine(error)}\n` };
  }
}

function success(value: unknown): CliResult {
  return { code: 0, stdout: `${JSON.stringify(value)}\n`, stderr: '' };
}

function parseFlags(args: string[], command: Command): Flags {
  try {
    const { values } = parseArgs({
      args,
      options: Object.fromEntries(command.flags.map((flag) => [flag, { type: 'string' as const }])),
      strict: true,
      allowPositionals: false,
    });
    return values as Flags;
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split('\n')[0]}; usage: ${command.usage}`);
  }
}

function need(flags: Flags, name: string): string {
  const value = flags[name];
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

/**
 * Where the demo's curl lines send requests: --base-url, else the address
 * `npm start` listens on with this environment (PORT, HOST).
 */
function baseUrlOf(flag: string | undefined, config: Config): string {
  if (flag !== undefined) {
    let url: URL;
    try {
      url = new URL(flag);
    } catch {
      throw new UsageError(`--base-url must be an http:// or https:// URL (got "${flag}")`);
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '') {
      throw new UsageError(`--base-url must be an http:// or https:// URL without query or fragment (got "${flag}")`);
    }
    return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  }
  if (config.port === 0) throw new UsageError('PORT=0 makes the server pick its port at start; pass --base-url with the address it printed');
  // A server bound to every interface is reached on loopback.
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

/** The key `master-key rotate` moves to: from a file, or else from COLLAB_NEW_MASTER_KEY; never both. */
function newMasterKey(file: string | undefined, envValue: string | undefined): Buffer {
  if (file !== undefined && envValue !== undefined && envValue !== '') throw new UsageError('give the new key once: --new-key-file or COLLAB_NEW_MASTER_KEY, not both');
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8').trim();
    } catch (error) {
      throw new UsageError(`--new-key-file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    return parseKeyText(text, `the new key file ${file}`);
  }
  if (envValue === undefined || envValue === '') throw new UsageError('the new key is required: --new-key-file FILE or COLLAB_NEW_MASTER_KEY');
  return parseKeyText(envValue.trim(), 'COLLAB_NEW_MASTER_KEY');
}

function bool(value: string, name: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`--${name} must be true or false (got "${value}")`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // Progress goes out as it happens: a rotation waits for the servers for a while.
  const result = await runCli(process.argv.slice(2), process.env, { progress: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  process.exitCode = result.code;
}
