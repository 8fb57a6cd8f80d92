// The database access the bench's floors share (floor-server.mjs,
// delivery-floor.mjs): the same drivers as the server (better-sqlite3 with the
// server's settings, or pg with named statements as Prisma's adapter
// prepares them), hand-written SQL with `?` placeholders on either.

/**
 * `query(sql, params)` → rows, with `?` placeholders on either database;
 * `transaction(work)` runs `work(query)` in one transaction and commits what it
 * returns (rolls back what it throws); `postgres` says which database it is.
 */
export async function openDatabase(url) {
  if (url.startsWith('file:')) {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(url.slice('file:'.length).split('?')[0]);
    // The server's settings (server/db/client.ts): a commit is not synced before the next, foreign keys are checked.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    const statements = new Map();
    const run = (sql, params) => {
      let statement = statements.get(sql);
      if (!statement) statements.set(sql, (statement = db.prepare(sql)));
      const values = params.map((p) => (typeof p === 'boolean' ? Number(p) : p));
      if (statement.reader) return statement.all(...values);
      statement.run(...values);
      return [];
    };
    // One connection: a statement of another request sent while a transaction is open would run
    // inside it, so while one is open or waiting, every statement queues behind it (as the server's gate).
    let line = Promise.resolve();
    let transactions = 0;
    const inLine = (work) => {
      const done = line.then(work);
      line = done.catch(() => undefined);
      return done;
    };
    return {
      postgres: false,
      async query(sql, params) {
        return transactions > 0 ? inLine(() => run(sql, params)) : run(sql, params);
      },
      async transaction(work) {
        transactions++;
        try {
          return await inLine(async () => {
            run('BEGIN IMMEDIATE', []);
            try {
              const result = await work(async (sql, params) => run(sql, params));
              run('COMMIT', []);
              return result;
            } catch (error) {
              run('ROLLBACK', []);
              throw error;
            }
          });
        } finally {
          transactions--;
        }
      },
      close: () => db.close(),
    };
  }
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, max: Number(process.env.FLOOR_POOL_SIZE ?? 10) });
  const named = new Map();
  // A named statement: prepared once per connection, as Prisma's adapter does.
  const run = async (client, sql, params) => {
    let statement = named.get(sql);
    if (statement === undefined) {
      let n = 0;
      named.set(sql, (statement = { name: `q${named.size}`, text: sql.replace(/\?/g, () => `$${++n}`) }));
    }
    return (await client.query({ ...statement, values: params })).rows;
  };
  return {
    postgres: true,
    query: (sql, params) => run(pool, sql, params),
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work((sql, params) => run(client, sql, params));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

