import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { POSTGRES_TEMPLATE_VAR, SQLITE_TEMPLATE_VAR } from './helpers/database.js';
import { scanLogs } from './helpers/log-capture.js';
import { postgresTemplate, sqliteTemplate } from './helpers/template-database.js';

/**
 * Gives the run one directory for server logs and recorded credentials
 * (workers inherit the variable), and at the end fails the run if any
 * credential the suite created appears in any log line. Before any test
 * file, makes the migrated template database that createTestDatabase
 * copies (test/helpers/template-database.ts), for the database the run
 * uses.
 */
export default async function setup(): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), 'collab-test-logs-'));
  process.env.COLLAB_TEST_LOG_DIR = dir;
  const pgUrl = process.env.TEST_DATABASE_URL;
  if (pgUrl) process.env[POSTGRES_TEMPLATE_VAR] = await postgresTemplate(pgUrl);
  else process.env[SQLITE_TEMPLATE_VAR] = await sqliteTemplate();
  // Only the whole suite creates every kind of credential; a run of one tier (TEST_TIER, .ci/run) need not.
  const wholeSuite = !process.env.TEST_TIER || process.env.TEST_TIER === 'all';
  return () => {
    const result = scanLogs(dir);
    const leaked = Object.entries(result.leaks).map(([kind, count]) => `${count} ${kind}(s)`);
    console.log(`log scan: ${result.secrets} credentials checked against ${result.logLines} log lines (${result.requestLines} request lines)`);
    const failure =
      leaked.length > 0
        ? // The directory is kept so the leak can be inspected.
          `credentials appear in the server logs: ${leaked.join(', ')} (logs kept in ${dir})`
        : result.secrets > 0 && result.requestLines === 0
          ? `the server logs in ${dir} hold no request lines: the scan proved nothing`
          : // The whole suite (CI) creates every kind; a kind never recorded means its recording broke.
            process.env.CI && wholeSuite && result.unrecorded.length > 0
            ? `the log scan recorded no ${result.unrecorded.join(', ')}: it proved nothing about them`
            : undefined;
    if (failure) {
      // vitest reports an error thrown here but still exits 0; the exit code is what CI reads.
      process.exitCode = 1;
      throw new Error(failure);
    }
    rmSync(dir, { recursive: true, force: true });
  };
}
