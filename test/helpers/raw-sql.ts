import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { providerOf, sqlitePath } from '../../server/db/adapter.js';

/**
 * Runs SQL statements on a test database behind the server's back, in one
 * transaction, whichever database the URL names: for states the API cannot
 * produce (orphans, rows of a future release).
 */
export async function runStatements(url: string, statements: readonly string[]): Promise<void> {
  if (providerOf(url) === 'sqlite') {
    const db = new Sqlite(sqlitePath(url), { timeout: 10_000 });
    try {
      db.transaction(() => statements.forEach((sql) => db.exec(sql)))();
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(['BEGIN', ...statements, 'COMMIT'].join(';\n'));
  } finally {
    await client.end();
  }
}
