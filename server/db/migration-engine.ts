// Prisma's schema engine (migrate deploy / diff / status) without its native
// binary: the CLI cannot download that binary on machines that reach only the
// npm registry, so we run @prisma/schema-engine-wasm over a driver adapter.
// The workarounds below are the pitfalls listed in
// shared/notes/prisma-offline.md; each is marked with its number.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import pg from 'pg';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import {
  bindMigrationAwareSqlAdapterFactory,
  type ErrorRegistry,
  type SqlDriverAdapter,
  type SqlDriverAdapterFactory,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQuery,
} from '@prisma/driver-adapter-utils';
import type { SchemaEngine, SchemaFilter } from '@prisma/schema-engine-wasm/schema_engine_bg';
import { adapterFactoryFor, providerOf } from './adapter.js';

export type { MigrationList, SchemaEngine } from '@prisma/schema-engine-wasm/schema_engine_bg';

type Runtime = typeof import('@prisma/schema-engine-wasm/schema_engine_bg');

/** No externally managed tables or enums. */
export const NO_FILTERS: SchemaFilter = { externalTables: [], externalEnums: [] };

// ---------------------------------------------------------------------------
// The wasm runtime, loaded once per process

// Kept on globalThis, not in a module variable: the runtime module is a plain
// node_modules import shared by everything in the process (e.g. several vitest
// files in one worker, each with its own copy of this module), and a second
// __wbg_set_wasm would swap the memory under engines created by the first.
const RUNTIME_KEY = Symbol.for('collab-backend.schemaEngineWasm');
type RuntimeHolder = { [RUNTIME_KEY]?: Promise<Runtime> };

export function loadSchemaEngineRuntime(): Promise<Runtime> {
  const holder = globalThis as RuntimeHolder;
  const loaded = (holder[RUNTIME_KEY] ??= instantiateRuntime());
  loaded.catch(() => {
    if (holder[RUNTIME_KEY] === loaded) delete holder[RUNTIME_KEY];
  });
  return loaded;
}

interface WasmApi {
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(module: object, imports: Record<string, unknown>): Promise<{ exports: Record<string, unknown> }>;
}

async function instantiateRuntime(): Promise<Runtime> {
  // The package does not export its .wasm; locate it next to the runtime
  // module. createRequire resolves the same under tsx, vitest and plain node.
  const runtimePath = createRequire(import.meta.url).resolve('@prisma/schema-engine-wasm/schema_engine_bg');
  const bytes = readFileSync(runtimePath.replace(/\.js$/, '.wasm'));
  const runtime = await import('@prisma/schema-engine-wasm/schema_engine_bg');
  // The project's lib settings (ES2023, no DOM) do not declare WebAssembly.
  const { WebAssembly: wasmApi } = globalThis as unknown as { WebAssembly: WasmApi };
  const module = await wasmApi.compile(bytes);
  // The wasm imports its JS glue under the module name wasm-bindgen gave it.
  const instance = await wasmApi.instantiate(module, { './schema_engine_bg.js': withUnrefTimers(runtime) });
  runtime.__wbg_set_wasm(instance.exports);
  (instance.exports['__wbindgen_start'] as () => void)();
  return runtime;
}

/**
 * The engine arms 10-second timers (lock and statement timeouts) that it does
 * not clear when freed; on PostgreSQL each one kept a finished CLI process
 * alive for 10 s. Unref'd, they still fire while the engine's own connections
 * keep the process running, and no longer hold it open after.
 */
function withUnrefTimers(runtime: Runtime): Record<string, unknown> {
  const imports: Record<string, unknown> = { ...runtime };
  for (const [name, value] of Object.entries(runtime)) {
    if (!name.startsWith('__wbg_setTimeout') || typeof value !== 'function') continue;
    imports[name] = (...args: unknown[]) => {
      const timer = (value as (...a: unknown[]) => unknown)(...args);
      (timer as { unref?: () => void } | null)?.unref?.();
      return timer;
    };
  }
  return imports;
}

// ---------------------------------------------------------------------------
// Adapter factories for the migration tool

/**
 * pg Client that reports PostgreSQL's internal "char" type (OID 18) as text.
 * Pitfall 4: @prisma/adapter-pg rejects OID 18 ("Unsupported column type"),
 * and the schema describer selects such catalog columns during diffs.
 * Values are already parsed as strings; only the reported type changes.
 */
const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

function reportCharAsText(result: unknown): unknown {
  for (const one of Array.isArray(result) ? result : [result]) {
    const fields = (one as { fields?: Array<{ dataTypeID: number }> } | null)?.fields;
    for (const field of fields ?? []) if (field.dataTypeID === PG_CHAR_OID) field.dataTypeID = PG_TEXT_OID;
  }
  return result;
}

class MigrationPgClient extends pg.Client {
  // pg's query() has many overloads; this wrapper covers the two the adapter
  // and pg-pool use (promise form and trailing callback).
  override query(...args: unknown[]): any {
    const last = args.at(-1);
    if (typeof last === 'function') {
      args[args.length - 1] = (error: unknown, result: unknown) =>
        (last as (e: unknown, r: unknown) => void)(error, error ? result : reportCharAsText(result));
      return (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
    }
    const returned = (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
    if (returned instanceof Promise) return returned.then(reportCharAsText);
    return returned;
  }
}

/** A PostgreSQL adapter factory for migration work (see MigrationPgClient). */
export function pgMigrationFactory(connectionString: string): PrismaPg {
  return new PrismaPg({ connectionString, Client: MigrationPgClient, max: 2 });
}

/** The main-database factory the migration tool uses for a DATABASE_URL. */
export async function migrationFactoryFor(databaseUrl: string): Promise<SqlDriverAdapterFactory> {
  return providerOf(databaseUrl) === 'sqlite' ? await adapterFactoryFor(databaseUrl) : pgMigrationFactory(databaseUrl);
}

/** A factory for an in-memory SQLite database per connection (main or shadow). */
export function sqliteMemoryFactory(): PrismaBetterSqlite3 {
  return new PrismaBetterSqlite3({ url: ':memory:' });
}

/**
 * Runs `fn` with a freshly created, uniquely named PostgreSQL database and
 * drops it afterwards (needs CREATEDB). Pitfall 3: adapter-pg's own
 * connectToShadowDb connects its pool to the MAIN database and drops the
 * shadow before closing its pool, so shadow databases are made here instead.
 */
export async function withTemporaryPgDatabase<T>(
  adminUrl: string,
  fn: (databaseUrl: string) => Promise<T>,
  prefix = 'prisma_shadow',
): Promise<T> {
  const name = `${prefix}_${randomUUID().replace(/-/g, '')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    try {
      return await fn(url.toString());
    } finally {
      await dropPgDatabase(admin, name);
    }
  } finally {
    await admin.end();
  }
}

/** DROP DATABASE that also ends stray sessions (WITH (FORCE) is PostgreSQL 13+). */
export async function dropPgDatabase(admin: pg.Client, name: string): Promise<void> {
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } catch {
    await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
  }
}

// ---------------------------------------------------------------------------
// Connection wrapping and tracking

function isMultiStatementError(error: unknown): boolean {
  return error instanceof Error && /more than one statement/i.test(error.message);
}

class TrackingFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider: SqlDriverAdapterFactory['provider'];
  readonly adapterName: string;
  private readonly open = new Set<SqlDriverAdapter>();

  constructor(
    private readonly main: SqlDriverAdapterFactory,
    private readonly shadow: SqlDriverAdapterFactory | undefined,
  ) {
    this.provider = main.provider;
    this.adapterName = main.adapterName;
  }

  async connect(): Promise<SqlDriverAdapter> {
    return this.track(await this.main.connect(), false);
  }

  async connectToShadowDb(): Promise<SqlDriverAdapter> {
    if (!this.shadow) {
      throw new Error('this schema engine operation needs a shadow database, and none was configured');
    }
    return this.track(await this.shadow.connect(), this.provider === 'sqlite');
  }

  /** Pitfall 1: the engine never disposes its connections (SQLite keeps an EXCLUSIVE lock). */
  async disposeAll(): Promise<void> {
    const open = [...this.open];
    await Promise.allSettled(open.map((connection) => connection.dispose()));
  }

  private track(connection: SqlDriverAdapter, scriptFallback: boolean): SqlDriverAdapter {
    let disposed = false;
    const info = connection.getConnectionInfo?.bind(connection);
    const wrapped: SqlDriverAdapter = {
      provider: connection.provider,
      adapterName: connection.adapterName,
      queryRaw: (query) => connection.queryRaw(query),
      executeRaw: async (query: SqlQuery) => {
        try {
          return await connection.executeRaw(query);
        } catch (error) {
          // Pitfall 2: replaying migrations on a SQLite shadow database sends
          // a whole migration.sql through executeRaw, which better-sqlite3
          // refuses; executeScript runs multi-statement text.
          if (scriptFallback && query.args.length === 0 && isMultiStatementError(error)) {
            await connection.executeScript(query.sql);
            return 0;
          }
          throw error;
        }
      },
      executeScript: (script) => connection.executeScript(script),
      startTransaction: (isolationLevel) => connection.startTransaction(isolationLevel),
      ...(info ? { getConnectionInfo: info } : {}),
      // Idempotent, so the engine disposing a connection itself and
      // disposeAll() doing it again cannot fail (pg's Pool.end throws twice).
      dispose: async () => {
        if (disposed) return;
        disposed = true;
        this.open.delete(wrapped);
        await connection.dispose();
      },
    };
    this.open.add(wrapped);
    return wrapped;
  }
}

/**
 * The engine rejects with "External error id#N" when a driver (JS) error
 * happened; the error itself waits in the adapter's registry. Put the
 * driver's message into the thrown error so the cause is visible.
 */
function surfaceDriverErrors(error: unknown, registry: ErrorRegistry): Error {
  const message =
    error instanceof Error
      ? error.message
      : typeof error === 'string'
        ? error
        : typeof (error as { message?: unknown } | null)?.message === 'string'
          ? (error as { message: string }).message
          : JSON.stringify(error);
  let cause: unknown;
  const rewritten = message.replace(/External error id#(\d+)/g, (whole, id: string) => {
    const record = registry.consumeError(Number(id));
    if (!record) return whole;
    cause ??= record.error;
    const driverMessage = record.error instanceof Error ? record.error.message : String(record.error);
    return `${whole}: ${driverMessage}`;
  });
  if (cause === undefined && error instanceof Error) return error;
  const surfaced = new Error(rewritten, { cause: cause ?? error });
  const code = (error as { code?: unknown } | null)?.code ?? (cause as { code?: unknown } | null)?.code;
  if (code !== undefined) Object.assign(surfaced, { code });
  return surfaced;
}

export interface EngineOptions {
  /** Connections to the database the engine works on. */
  main: SqlDriverAdapterFactory;
  /** Connections to an empty scratch database, needed to diff from a migrations folder. */
  shadow?: SqlDriverAdapterFactory;
  /** Prisma schema files as [path, content] pairs, when the operation reads the datasource from them. */
  datamodels?: Array<[string, string]>;
  /** Engine log lines (JSON strings); dropped by default. */
  log?: (line: string) => void;
}

/**
 * Opens a schema engine, runs `fn`, then frees the engine and disposes every
 * connection it opened. Errors carry the driver's own message.
 */
export async function withEngine<T>(options: EngineOptions, fn: (engine: SchemaEngine) => Promise<T>): Promise<T> {
  const runtime = await loadSchemaEngineRuntime();
  const tracking = new TrackingFactory(options.main, options.shadow);
  const bound = bindMigrationAwareSqlAdapterFactory(tracking);
  const log = options.log ?? (() => {});
  let engine: SchemaEngine | undefined;
  try {
    engine = await runtime.SchemaEngine.new({ datamodels: options.datamodels }, log, bound);
    return await fn(engine);
  } catch (error) {
    throw surfaceDriverErrors(error, bound.errorRegistry);
  } finally {
    engine?.free();
    await tracking.disposeAll();
  }
}

/** withEngine on the database of a DATABASE_URL (no shadow database). */
export async function withEngineFor<T>(databaseUrl: string, fn: (engine: SchemaEngine) => Promise<T>): Promise<T> {
  return withEngine({ main: await migrationFactoryFor(databaseUrl) }, fn);
}
