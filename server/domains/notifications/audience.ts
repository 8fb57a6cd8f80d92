import type { TUserRef } from '../../../contract/common/content.js';
import type { TNotificationConfig } from '../../../contract/notifications/schemas.js';
import type { AccessChecks, ThreadAudience } from '../access/checks.js';
import { threadVisible } from '../access/checks.js';
import type { UsersRepo } from '../access/repos/users.js';
import { ANONYMOUS_USER } from '../../platform/owned-data.js';
import type { Channel, ConfigRow, NewRecipient, NotificationsRepo } from './repo.js';
import { effectiveConfig, SERVICE_DEFAULT_CONFIG, userKeyOf, userRefOf } from './shapes.js';

/** User IDs per query on the user table. */
const USER_BATCH = 500;

export interface Where {
  apiKeyId: string;
  organizationId: string;
  /** null: an organization-level notification (custom ones without a document). */
  documentId: string | null;
}

/**
 * Who a notification reaches, decided for many users with a few queries
 * (configs, access, user rows), never one query per recipient: a comment
 * mentioning 20 users costs the same handful of statements as one mentioning
 * a single user.
 */
export function createAudience(deps: { repo: NotificationsRepo; users: Pick<UsersRepo, 'findUsers'>; checks: Pick<AccessChecks, 'readersAmong' | 'readersOf'> }) {
  const { repo, users: userRepo, checks } = deps;

  const byUser = (rows: ConfigRow[]) => new Map(rows.map((row) => [row.userId, row]));

  /** Each user's effective config on the document (or at organization level). */
  async function configsOf(where: Where, userIds: readonly string[]): Promise<Map<string, TNotificationConfig>> {
    if (userIds.length === 0) return new Map();
    const [documentLevel, organizationLevel] = await Promise.all([
      where.documentId === null ? Promise.resolve([]) : repo.documentConfigs(where.apiKeyId, where.organizationId, [where.documentId], userIds),
      repo.defaultConfigs(where.apiKeyId, where.organizationId, userIds),
    ]);
    const documentRows = byUser(documentLevel);
    const organizationRows = byUser(organizationLevel);
    return new Map(userIds.map((userId) => [userId, effectiveConfig(documentRows.get(userId), organizationRows.get(userId))]));
  }

  /**
   * The users whose effective config on the document is `ALL` for a channel.
   * With the service default `MINE` (inbox and email), only users who chose
   * `ALL` (on the document, or as their organization default without a
   * document-level value for the channel) qualify: the fan-out reads those
   * configs rather than every reader of the document.
   */
  async function channelAll(where: Where & { documentId: string }, channel: Channel): Promise<string[]> {
    if (SERVICE_DEFAULT_CONFIG[channel] === 'ALL') {
      // Kept honest should the default change: then every reader is a candidate.
      return (await checks.readersOf(where.apiKeyId, where.organizationId, where.documentId)).map((r) => r.userId);
    }
    const [documentLevel, organizationAll] = await Promise.all([
      repo.documentConfigs(where.apiKeyId, where.organizationId, [where.documentId]),
      repo.defaultConfigsOfOrWithLevel(where.apiKeyId, where.organizationId, [], channel, 'ALL'),
    ]);
    return optedIn(channel, byUser(documentLevel), organizationAll);
  }

  /** Users whose config on the document is `ALL`, or whose organization default is and who set nothing there on the document. */
  function optedIn(channel: Channel, documentRows: ReadonlyMap<string, ConfigRow>, organizationRows: Iterable<ConfigRow>): string[] {
    const all = new Set<string>();
    for (const row of documentRows.values()) if (row[channel] === 'ALL') all.add(row.userId);
    for (const row of organizationRows) if (row[channel] === 'ALL' && documentRows.get(row.userId)?.[channel] == null) all.add(row.userId);
    return [...all];
  }

  /**
   * Whom an event on a document reaches on one channel: the users whose
   * effective config there is `ALL`, and the users it involves (the `MINE`
   * audience) unless theirs is `NONE`; never the user who acted or the
   * anonymous user; only users who can read the document and may see the
   * thread (its `context` matching their access fields; for a members-only
   * thread, members of the organization). The inbox and email channels apply
   * the same rule, each to its own config value.
   */
  async function reached(
    where: Where & { documentId: string },
    channel: Channel,
    involved: ReadonlyMap<string, unknown>,
    actorUserId: string,
    thread?: ThreadAudience,
  ): Promise<string[]> {
    const involvedIds = [...involved.keys()];
    const candidates = new Set<string>();
    if (SERVICE_DEFAULT_CONFIG[channel] === 'ALL' || involvedIds.length > USER_BATCH) {
      const [all, configs] = await Promise.all([channelAll(where, channel), configsOf(where, involvedIds)]);
      for (const userId of all) candidates.add(userId);
      for (const userId of involvedIds) if (configs.get(userId)?.[channel] !== 'NONE') candidates.add(userId);
    } else {
      // Two reads serve both sides: the document's configs (every user's, the involved users' among them)
      // and the organization defaults of the involved users or at `ALL` on this channel.
      const [documentLevel, organizationLevel] = await Promise.all([
        repo.documentConfigs(where.apiKeyId, where.organizationId, [where.documentId]),
        repo.defaultConfigsOfOrWithLevel(where.apiKeyId, where.organizationId, involvedIds, channel, 'ALL'),
      ]);
      const documentRows = byUser(documentLevel);
      const organizationRows = byUser(organizationLevel);
      for (const userId of optedIn(channel, documentRows, organizationLevel)) candidates.add(userId);
      for (const userId of involvedIds) if (effectiveConfig(documentRows.get(userId), organizationRows.get(userId))[channel] !== 'NONE') candidates.add(userId);
    }
    candidates.delete(actorUserId);
    candidates.delete(ANONYMOUS_USER.userId);
    return readable(where, [...candidates], thread);
  }

  /** User rows of these IDs, for names and emails. */
  async function usersOf(apiKeyId: string, userIds: readonly string[]): Promise<Map<string, { name: string; email: string }>> {
    const users = new Map<string, { name: string; email: string }>();
    for (let i = 0; i < userIds.length; i += USER_BATCH) {
      for (const row of await userRepo.findUsers(apiKeyId, userIds.slice(i, i + USER_BATCH))) users.set(row.id, row);
    }
    return users;
  }

  /**
   * Of the candidates, those who can read the document and (for a thread)
   * may see the thread; every candidate at organization level.
   */
  async function readable(where: Where, candidates: readonly string[], thread?: ThreadAudience): Promise<string[]> {
    if (where.documentId === null || candidates.length === 0) return [...candidates];
    const readers = await checks.readersAmong(where.apiKeyId, where.organizationId, where.documentId, [...candidates]);
    return candidates.filter((userId) => {
      const access = readers.get(userId);
      return access !== undefined && (thread === undefined || threadVisible(thread, access));
    });
  }

  /** Recipient rows with their notifyUsers key: the user row's email, else the email the caller gave, else the ID. */
  async function recipientsOf(apiKeyId: string, userIds: readonly string[], given: ReadonlyMap<string, TUserRef> = new Map()): Promise<NewRecipient[]> {
    const users = await usersOf(apiKeyId, userIds);
    return userIds.map((userId) => {
      const known = users.get(userId);
      const ref = known && known.email ? userRefOf(userId, known) : (given.get(userId) ?? { userId });
      return { userId, userKey: userKeyOf(ref) };
    });
  }

  return { configsOf, channelAll, reached, usersOf, readable, recipientsOf, readersOf: checks.readersOf };
}

export type Audience = ReturnType<typeof createAudience>;
