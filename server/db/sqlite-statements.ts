import type { Database, Statement } from 'better-sqlite3';

/**
 * Prepared statements kept per SQL text. Prisma's SQLite adapter prepares
 * every statement on every call (`client.prepare(sql).bind(args)`), which was
 * 4–7% of the server's time on read-heavy requests; the ORM sends the same
 * few hundred SQL texts over and over. `prepare` here returns a cached
 * statement behind a view that binds the arguments per call instead of for
 * good (better-sqlite3 allows `bind` once per statement), offering exactly
 * what the adapter uses: `reader`, `run()`, and after `bind`, `columns()`, `run()` and
 * `raw().all()`.
 *
 * Safe to share: every call runs synchronously to completion on the one
 * connection, so no two uses of a statement overlap; SQLite re-prepares a
 * statement by itself when a migration changes the schema.
 */
export function cacheStatements(client: Database, max = 1000): void {
  const prepare = client.prepare.bind(client);
  const cache = new Map<string, Statement>();
  const statementFor = (sql: string): Statement => {
    let statement = cache.get(sql);
    if (statement !== undefined) {
      // Most recently used last: the first key is the one to drop.
      cache.delete(sql);
      cache.set(sql, statement);
      return statement;
    }
    statement = prepare(sql);
    if (statement.reader) statement.raw(true);
    if (cache.size >= max) cache.delete(cache.keys().next().value!);
    cache.set(sql, statement);
    return statement;
  };
  (client as { prepare: unknown }).prepare = (sql: string) => {
    const statement = statementFor(sql);
    return {
      reader: statement.reader,
      // Unbound use, as the adapter's `prepare("BEGIN").run()`.
      run: () => statement.run(),
      bind: (args: unknown[]) => ({
        reader: statement.reader,
        columns: () => statement.columns(),
        run: () => statement.run(args),
        raw: () => ({ all: () => statement.all(args) }),
      }),
    };
  };
}
