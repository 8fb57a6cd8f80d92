// The disk under the SQLite file fills up. The injection is real: the
// database lives on a small tmpfs of its own, and a filler file takes the
// rest of its space, so SQLite's own writes fail (SQLITE_FULL). A write that
// does not fit is refused with UNAVAILABLE and a message without paths,
// nothing of it is kept, the process stays up, reads go on, and writes
// succeed again as soon as space is freed. Needs root (mount); skipped with
// the reason otherwise.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usingPostgres } from '../helpers/database.js';
import { memoryLogger } from '../helpers/log-capture.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../helpers/server.js';

function mountSmallDisk(): { dir: string } | { reason: string } {
  if (usingPostgres) return { reason: 'TEST_DATABASE_URL is set (PostgreSQL run)' };
  const dir = mkdtempSync(join(tmpdir(), 'collab-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m,mode=0700', 'tmpfs', dir], { stdio: 'pipe' });
    return { dir };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return { reason: `cannot mount a tmpfs (needs root): ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}` };
  }
}

const disk = mountSmallDisk();
if ('reason' in disk) console.log(`skipping the full-disk fault: ${disk.reason}`);

describe.skipIf('reason' in disk)('the disk under the SQLite database fills up', () => {
  const dir = 'dir' in disk ? disk.dir : '';
  const filler = join(dir, 'filler');
  let server: TestServer;
  let ws: WorkspaceCredentials;
  const log = memoryLogger();
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    server = await startTestServer({ DATABASE_URL: `file:${join(dir, 'collab.db')}` }, { logger: log.logger });
    ws = await server.workspace();
    expect((await addUsers('org-a', 'seed', 1)).status).toBe(200);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await server?.close();
    execFileSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  });

  // About 2.5 MB of rows: more than the WAL file holds from earlier writes, so SQLite must grow a file.
  const addUsers = (organizationId: string, prefix: string, n: number) =>
    server.post(
      '/v2/users/add',
      {
        data: {
          organizationId,
          users: Array.from({ length: n }, (_, i) => ({ userId: `${prefix}-${i}`, name: `User ${i}`, photoUrl: `https://example.com/${'p'.repeat(2000)}/${i}.png` })),
        },
      },
      appHeaders(ws),
    );
  const getUsers = (organizationId: string) => server.post('/v2/users/get', { data: { organizationId } }, appHeaders(ws));

  /** Takes every free byte of the filesystem. */
  function fillDisk(): void {
    const fd = openSync(filler, 'w');
    const chunk = Buffer.alloc(64 * 1024, 1);
    try {
      for (;;) writeSync(fd, chunk);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    }
    // The last bytes that a whole chunk did not fit into.
    try {
      for (;;) writeSync(fd, chunk, 0, 512);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    } finally {
      closeSync(fd);
    }
  }

  it('refuses the write with UNAVAILABLE, keeps none of it, reads on, and writes again once space is freed', async () => {
    fillDisk();
    const full = await addUsers('org-b', 'b', 1000);
    expect([full.status, full.body.error?.status]).toEqual([503, 'UNAVAILABLE']);
    expect(full.body.error.message).toBe('the database is out of storage space; retry once an operator has freed space');
    expect(JSON.stringify(full.body)).not.toContain(dir);

    // Reads need no space.
    const read = await getUsers('org-a');
    expect(read.status).toBe(200);

    // Nothing of the refused request, seen by a connection of its own.
    const reader = new Database(join(dir, 'collab.db'), { readonly: true });
    try {
      expect(reader.prepare(`SELECT COUNT(*) AS n FROM "User" WHERE id LIKE 'b-%'`).get()).toEqual({ n: 0 });
      expect(reader.prepare(`SELECT id FROM "Organization" WHERE id = 'org-b'`).all()).toEqual([]);
    } finally {
      reader.close();
    }

    rmSync(filler);
    const again = await addUsers('org-b', 'b', 1000);
    expect(again.status).toBe(200);
    expect((await getUsers('org-b')).body.result.data).toHaveLength(1000);
    expect(unhandled).toEqual([]);
  }, 60_000);
});
