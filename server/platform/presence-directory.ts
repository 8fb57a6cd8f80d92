import type { Logger } from 'pino';
import type { DocumentKey } from './owned-data.js';

/** A user connected over WebSocket to an editor of a document, as one process reports it. */
export interface ReportedUser {
  user: { userId: string; name?: string; email?: string };
  state: Record<string, unknown>;
  lastUpdated: number;
}

/**
 * Where each server process reports the users connected to it, so that Get
 * Presence on any process lists those connected to every other. Without
 * REDIS_URL there is one process (the fan-out, fanout.ts, is in-process too)
 * and nothing to share.
 */
export interface PresenceDirectory {
  /** Whether other processes exist to report to (else `report` and `othersOf` do nothing). */
  readonly shared: boolean;
  /** Replaces what this process reports for the document; an empty list withdraws it. */
  report(processId: string, document: DocumentKey, users: readonly ReportedUser[]): Promise<void>;
  /** What the other processes report for the document. */
  othersOf(processId: string, document: DocumentKey): Promise<ReportedUser[]>;
  close(): Promise<void>;
}

export function localPresenceDirectory(): PresenceDirectory {
  return { shared: false, report: async () => undefined, othersOf: async () => [], close: async () => undefined };
}

/**
 * A report lives this long unless renewed: each process renews its reports
 * every RENEW_MS (server/domains/presence/connected-users.ts), so the report
 * of a process that died without withdrawing it disappears within this time.
 */
export const REPORT_TTL_SECONDS = 45;

/**
 * In Redis, per document: a set of the processes reporting it and, per
 * process, its report as one JSON string. Both expire with the TTL (Redis's
 * own clock, so the servers' clocks never have to agree); a reader skips
 * members whose report has expired and removes them from the set.
 */
export async function redisPresenceDirectory(url: string, log: Logger): Promise<PresenceDirectory> {
  // With REDIS_URL only, like the fan-out's (see fanout.ts).
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, { maxRetriesPerRequest: 2 });
  redis.on('error', (error) => log.warn({ err: error }, 'redis (presence directory) connection error'));
  // IDs may hold any character: the JSON array of them is an unambiguous key.
  const base = (d: DocumentKey) => `collab:presence:${JSON.stringify([d.apiKeyId, d.organizationId, d.documentId])}`;
  const membersKey = (d: DocumentKey) => `${base(d)}:processes`;
  const reportKey = (d: DocumentKey, processId: string) => `${base(d)}:process:${processId}`;
  return {
    shared: true,
    async report(processId, document, users) {
      const multi = redis.multi();
      if (users.length === 0) {
        multi.del(reportKey(document, processId)).srem(membersKey(document), processId);
      } else {
        multi
          .set(reportKey(document, processId), JSON.stringify(users), 'EX', REPORT_TTL_SECONDS)
          .sadd(membersKey(document), processId)
          .expire(membersKey(document), REPORT_TTL_SECONDS);
      }
      await multi.exec();
    },
    async othersOf(processId, document) {
      // Without Redis, Get Presence still answers with this process's own connections (the caller adds them).
      if (redis.status !== 'ready') return [];
      try {
        return await readOthers(processId, document);
      } catch (error) {
        log.warn({ err: error }, 'reading the presence directory failed; answering with this process\'s connections only');
        return [];
      }
    },
    async close() {
      await redis.quit().catch(() => undefined);
    },
  };

  async function readOthers(processId: string, document: DocumentKey): Promise<ReportedUser[]> {
    const others = (await redis.smembers(membersKey(document))).filter((member) => member !== processId);
    if (others.length === 0) return [];
    const reports = await redis.mget(others.map((member) => reportKey(document, member)));
    const expired = others.filter((_, i) => reports[i] === null);
    if (expired.length > 0) await redis.srem(membersKey(document), ...expired);
    return reports.flatMap((report) => (report === null ? [] : (JSON.parse(report) as ReportedUser[])));
  }
}
