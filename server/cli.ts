import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { loadConfig } from './config.js';
import { openDatabase } from './db/client.js';
import { applyMigrations, migrationStatus } from './db/migrate.js';
import { createAccountsRepo } from './domains/accounts/repo.js';
import { createAccountsService, type AccountsService } from './domains/accounts/service.js';
import { createSigningKeys, type SigningKeys } from './domains/permissions/signing-keys.js';
import { AppError } from './lib/app-error.js';
import { Sealer } from './lib/crypto.js';
import { loadMasterKey } from './lib/master-key.js';

/**
 * The operator CLI (the "administrative console" of the specification).
 * Prints one JSON object on stdout; diagnostics and errors go to stderr as
 * one line; exit 0 on success, 2 on bad arguments, 1 on any other failure.
 */

class UsageError extends Error {}

type Flags = Record<string, string | undefined>;

interface Services {
  accounts: AccountsService;
  signingKeys: SigningKeys;
}

interface Command {
  usage: string;
  flags: string[];
  run(services: Services, flags: Flags): Promise<unknown>;
}

const COMMANDS: Record<string, Command> = {
  'workspace create': {
    usage: 'workspace create --owner-email E [--name N]',
    flags: ['owner-email', 'name'],
    run: ({ accounts: a }, f) => a.createWorkspace({ ownerEmail: need(f, 'owner-email'), name: f.name }),
  },
  'workspace verify-email': {
    usage: 'workspace verify-email --owner-email E',
    flags: ['owner-email'],
    run: ({ accounts: a }, f) => a.verifyOwnerEmail(need(f, 'owner-email')),
  },
  'workspace get': {
    usage: 'workspace get --api-key K',
    flags: ['api-key'],
    run: ({ accounts: a }, f) => a.getWorkspace(need(f, 'api-key')),
  },
  'auth-token create': {
    usage: 'auth-token create --api-key K [--name N]',
    flags: ['api-key', 'name'],
    run: ({ accounts: a }, f) => a.createAuthToken(need(f, 'api-key'), f.name),
  },
  'auth-token revoke': {
    usage: 'auth-token revoke --api-key K --auth-token T',
    flags: ['api-key', 'auth-token'],
    run: ({ accounts: a }, f) => a.revokeAuthToken(need(f, 'api-key'), need(f, 'auth-token')),
  },
  'ai-key set': {
    usage: 'ai-key set --api-key K --provider openai|anthropic|gemini --key SECRET',
    flags: ['api-key', 'provider', 'key'],
    run: ({ accounts: a }, f) => a.setAiKey(need(f, 'api-key'), need(f, 'provider'), need(f, 'key')),
  },
  'feature set': {
    usage: 'feature set --api-key K --name advancedQueries|notifications --enabled true|false',
    flags: ['api-key', 'name', 'enabled'],
    run: ({ accounts: a }, f) => a.setFeature(need(f, 'api-key'), need(f, 'name'), bool(need(f, 'enabled'), 'enabled')),
  },
  'signing-key rotate': {
    usage: 'signing-key rotate --api-key K',
    flags: ['api-key'],
    run: async ({ accounts, signingKeys }, f) => {
      const { apiKey } = await accounts.getWorkspace(need(f, 'api-key'));
      return signingKeys.rotate(apiKey.id);
    },
  },
};

const DB_COMMANDS: Record<string, { usage: string; run(databaseUrl: string): Promise<unknown> }> = {
  'db migrate': { usage: 'db migrate', run: (url) => applyMigrations(url) },
  'db status': { usage: 'db status', run: (url) => migrationStatus(url) },
};

export const USAGE = [...Object.values(COMMANDS), ...Object.values(DB_COMMANDS)].map((c) => `  ${c.usage}`).join('\n');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one CLI invocation; separated from process I/O so tests can call it in-process. */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliResult> {
  try {
    const name = argv.slice(0, 2).join(' ');
    const config = loadConfig(env);
    const dbCommand = DB_COMMANDS[name];
    if (dbCommand) {
      if (argv.length > 2) throw new UsageError(`unexpected argument "${argv[2]}"; usage: ${dbCommand.usage}`);
      return success(await dbCommand.run(config.databaseUrl));
    }
    const command = COMMANDS[name];
    if (!command) throw new UsageError(argv.length === 0 ? `a command is required; commands:\n${USAGE}` : `unknown command "${name}"; commands:\n${USAGE}`);
    const flags = parseFlags(argv.slice(2), command);

    const sealer = new Sealer(loadMasterKey({ envValue: config.masterKey, dataDir: config.dataDir }));
    await applyMigrations(config.databaseUrl);
    const database = await openDatabase(config.databaseUrl);
    try {
      const accounts = createAccountsService({ repo: createAccountsRepo(database.db), uow: database.uow, sealer });
      const signingKeys = createSigningKeys({ db: database.db, uow: database.uow, sealer });
      return success(await command.run({ accounts, signingKeys }, flags));
    } finally {
      await database.close();
    }
  } catch (error) {
    if (error instanceof UsageError) return { code: 2, stdout: '', stderr: `error: ${error.message}\n` };
    if (error instanceof AppError) return { code: 1, stdout: '', stderr: `error: ${error.status}: ${error.message}\n` };
    const message = error instanceof Error ? error.message : String(error);
    // Prisma puts the call site first and the cause last; the cause is what helps.
    const line = message.split('\n').map((l) => l.trim()).filter((l) => l !== '').at(-1) ?? 'unknown error';
    return { code: 1, stdout: '', stderr: `error: ${line}\n` };
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

function bool(value: string, name: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`--${name} must be true or false (got "${value}")`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await runCli(process.argv.slice(2));
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  process.exitCode = result.code;
}
