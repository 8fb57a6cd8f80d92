// Database outcomes that reach the error handler map to the specification's
// statuses in one place: a row deleted between a look-up and its write is
// NOT_FOUND (not INTERNAL), a transaction that cannot get the database in
// time is UNAVAILABLE; the driver's message never reaches the client.
import express from 'express';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '../../server/db/generated/sqlite/client.js';
import { Prisma as PgPrisma } from '../../server/db/generated/postgresql/client.js';
import { databaseOutage } from '../../server/db/errors.js';
import { errorHandler } from '../../server/http/error-handler.js';

const known = (code: string, P: typeof Prisma = Prisma) =>
  new P.PrismaClientKnownRequestError(`driver says ${code} with internals`, { code, clientVersion: '7.10.0' });

const failures: Record<string, unknown> = {
  missing: known('P2025'),
  missingPg: known('P2025', PgPrisma as unknown as typeof Prisma),
  busy: known('P2028'),
  conflict: known('P2034'),
  other: known('P2003'),
};

let url: string;
let close: () => void;
beforeAll(async () => {
  const app = express();
  app.post('/:failure', (req, _res, next) => next(failures[req.params.failure!]));
  app.use(errorHandler);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(() => close?.());

describe('database failures', () => {
  it.each([
    ['missing', 404, 'NOT_FOUND'],
    ['missingPg', 404, 'NOT_FOUND'],
    ['busy', 503, 'UNAVAILABLE'],
    ['conflict', 503, 'UNAVAILABLE'],
    ['other', 500, 'INTERNAL'],
  ])('%s → %i %s', async (failure, http, status) => {
    const res = await fetch(`${url}/${failure}`, { method: 'POST' });
    const body = (await res.json()) as { error: { status: string; message: string } };
    expect([res.status, body.error.status]).toEqual([http, status]);
    expect(body.error.message).not.toMatch(/driver|internals|P20/);
  });
});

describe('database outages by driver error (as Prisma passes them on)', () => {
  const viaAdapter = (cause: Record<string, unknown>) =>
    new Prisma.PrismaClientKnownRequestError('Database error with internals', { code: 'P2010', clientVersion: '7.10.0', meta: { driverAdapterError: { name: 'DriverAdapterError', cause } } });
  const rawAdapterError = (cause: Record<string, unknown>) => Object.assign(new Error('driver text /var/lib/db/collab.db'), { name: 'DriverAdapterError', cause });

  it.each([
    ['SQLite busy (P1008)', known('P1008'), 'busy'],
    ['SQLite SQLITE_FULL at commit', rawAdapterError({ kind: 'sqlite', originalCode: 'SQLITE_FULL', extendedCode: 1 }), 'full'],
    ['SQLite SQLITE_IOERR_WRITE', viaAdapter({ kind: 'sqlite', originalCode: 'SQLITE_IOERR_WRITE', extendedCode: 1 }), 'unreachable'],
    ['SQLite unnamed extended code 13', viaAdapter({ kind: 'sqlite', originalCode: 'UNKNOWN_SQLITE_ERROR_13', extendedCode: 13 }), 'full'],
    ['PostgreSQL admin shutdown 57P01', viaAdapter({ kind: 'postgres', code: '57P01', originalCode: '57P01' }), 'unreachable'],
    ['PostgreSQL connection failure 08006', viaAdapter({ kind: 'postgres', code: '08006' }), 'unreachable'],
    ['PostgreSQL disk full 53100', viaAdapter({ kind: 'postgres', code: '53100' }), 'full'],
    ['PostgreSQL deadlock 40P01', viaAdapter({ kind: 'postgres', code: '40P01' }), 'busy'],
    ['pg connection cut without a code', new Error('Connection terminated unexpectedly'), 'unreachable'],
    ['adapter ConnectionClosed', viaAdapter({ kind: 'ConnectionClosed' }), 'unreachable'],
  ])('%s → %s', (_name, error, outage) => {
    expect(databaseOutage(error)).toBe(outage);
  });

  it.each([
    ['a constraint violation', viaAdapter({ kind: 'postgres', code: '23514' })],
    ['an SQLite syntax error', viaAdapter({ kind: 'sqlite', originalCode: 'SQLITE_ERROR', extendedCode: 1 })],
    ['a plain bug', new TypeError('x is undefined')],
  ])('%s is no outage (INTERNAL)', (_name, error) => {
    expect(databaseOutage(error)).toBeUndefined();
  });
});
