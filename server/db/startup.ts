import { ConfigError } from '../lib/config-error.js';
import { blameVariable } from '../lib/startup-error.js';
import { openDatabase, type Database, type OpenOptions } from './client.js';
import { applyMigrations } from './migrate.js';

/**
 * What the server and the CLI do first: apply pending migrations, then open
 * the database. A failure names DATABASE_URL in one line without repeating
 * the URL (it may hold a password).
 */
export async function openMigratedDatabase(databaseUrl: string, options: OpenOptions = {}): Promise<{ database: Database; applied: string[] }> {
  let applied: string[];
  try {
    applied = (await applyMigrations(databaseUrl)).applied;
  } catch (error) {
    throw error instanceof ConfigError ? error : blameVariable('DATABASE_URL', error, databaseUrl);
  }
  try {
    return { database: await openDatabase(databaseUrl, options), applied };
  } catch (error) {
    throw blameVariable('DATABASE_URL', error, databaseUrl);
  }
}
