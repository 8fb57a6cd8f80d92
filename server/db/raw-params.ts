import { providerOfClient, type Db } from './client.js';

/**
 * The parameters of one raw statement in the database's dialect: `bind`
 * adds a value and returns its placeholder (`$1`, `$2`… on PostgreSQL, `?`
 * on SQLite), `params` is what to pass after the SQL. Values only ever
 * travel as parameters; identifiers come from code.
 */
export function rawParams(db: Db): { params: unknown[]; bind(value: unknown): string } {
  const postgres = providerOfClient(db) === 'postgresql';
  const params: unknown[] = [];
  return {
    params,
    bind(value) {
      params.push(value);
      return postgres ? `$${params.length}` : '?';
    },
  };
}
