import type { UnitOfWork } from '../db/unit-of-work.js';

/**
 * Data owned by a document or a user. Every table keyed by a document or a
 * user registers here how its rows follow a document to a new ID (Migrate
 * Documents), how they go with their document or organization, and how a
 * user's rows are erased (Delete All User Data). The operations walk the
 * registry, so a new table cannot be forgotten by one of them; a test fails
 * when a model with a `documentId` or `userId` column is not registered.
 *
 * Every hook runs inside the caller's unit of work and must be idempotent:
 * migration and erasure are jobs, and a job may run again after a crash.
 */
export interface DocumentKey {
  apiKeyId: string;
  organizationId: string;
  documentId: string;
}

export interface OwnedData {
  /** Who registered it, for error messages. */
  name: string;
  /** The Prisma models whose rows this entry moves and erases. */
  models: readonly string[];
  /** Re-keys every row of `from` to `toDocumentId` (same application and organization). */
  moveDocument(from: DocumentKey, toDocumentId: string): Promise<void>;
  /** Removes the rows of these documents (document or folder deletion). */
  deleteDocuments(key: { apiKeyId: string; organizationId: string; documentIds: readonly string[] }): Promise<void>;
  /** Removes every row of the organization. */
  deleteOrganization(key: { apiKeyId: string; organizationId: string }): Promise<void>;
  /** Erases a user's personal data; what others wrote stays, with the user's authorship anonymized. */
  eraseUser(key: { apiKeyId: string; userId: string }): Promise<void>;
}

/** The features Get All User Data returns, one array each. */
export type UserDataFeature = 'comments' | 'reactions' | 'recordings' | 'notifications' | 'judgments';

/** A keyset position inside one feature's list (see lib/page-token.ts). */
export interface UserDataCursor {
  at: number;
  id: string;
}

/**
 * Where Get All User Data reads one feature from. The domain that owns the
 * rows registers it beside its OwnedData entry, so export and erasure cover
 * the same tables.
 */
export interface UserDataSource {
  feature: UserDataFeature;
  /**
   * The user's items of one organization (created by them or, for comments
   * and notifications, involving them), in a stable order, strictly after
   * `after`, at most `take`; each with the cursor that continues after it.
   * Items are in the response shape of contract/users/user-data.ts.
   */
  list(
    key: { apiKeyId: string; apiKey: string; organizationId: string; userId: string },
    after: UserDataCursor | undefined,
    take: number,
  ): Promise<{ item: unknown; cursor: UserDataCursor }[]>;
}

export interface OwnedDataRegistry {
  register(entry: OwnedData): void;
  addUserDataSource(source: UserDataSource): void;
  userDataSource(feature: UserDataFeature): UserDataSource | undefined;
  /** Every registered model name. */
  models(): string[];
  moveDocument: OwnedData['moveDocument'];
  deleteDocuments: OwnedData['deleteDocuments'];
  deleteOrganization: OwnedData['deleteOrganization'];
  eraseUser: OwnedData['eraseUser'];
}

export function createOwnedDataRegistry(deps: { uow: UnitOfWork }): OwnedDataRegistry {
  const entries: OwnedData[] = [];
  const sources = new Map<UserDataFeature, UserDataSource>();
  const inUnitOfWork = (operation: string) => {
    if (!deps.uow.active()) throw new Error(`owned data: ${operation} must run inside a unit of work`);
  };
  // In registration order: content registers after access, and e.g. a move re-keys content before nothing else depends on it.
  const each = async (operation: string, run: (entry: OwnedData) => Promise<void>) => {
    inUnitOfWork(operation);
    for (const entry of entries) await run(entry);
  };
  return {
    register(entry) {
      const taken = entries.flatMap((e) => e.models).find((m) => entry.models.includes(m));
      if (taken !== undefined) throw new Error(`owned data: model ${taken} is registered twice (by ${entry.name})`);
      entries.push(entry);
    },
    models: () => entries.flatMap((e) => [...e.models]),
    addUserDataSource(source) {
      if (sources.has(source.feature)) throw new Error(`owned data: a source for ${source.feature} is registered twice`);
      sources.set(source.feature, source);
    },
    userDataSource: (feature) => sources.get(feature),
    moveDocument: (from, to) => each('moveDocument', (e) => e.moveDocument(from, to)),
    deleteDocuments: (key) => (key.documentIds.length === 0 ? Promise.resolve() : each('deleteDocuments', (e) => e.deleteDocuments(key))),
    deleteOrganization: (key) => each('deleteOrganization', (e) => e.deleteOrganization(key)),
    eraseUser: (key) => each('eraseUser', (e) => e.eraseUser(key)),
  };
}

/** The anonymous author that replaces an erased user in what others can still read. */
export const ANONYMOUS_USER = { userId: 'anonymous', name: 'Anonymous' } as const;

/** A repo whose rows are keyed by document and by the user who made them, with one statement per hook. */
export interface DocumentKeyedRepo {
  moveDocument(apiKeyId: string, organizationId: string, from: string, to: string): Promise<unknown>;
  deleteDocuments(apiKeyId: string, organizationId: string, documentIds: readonly string[]): Promise<unknown>;
  deleteOrganization(apiKeyId: string, organizationId: string): Promise<unknown>;
  /** Erasure deletes the user's rows outright (nothing of theirs is kept anonymized). */
  deleteByUser(apiKeyId: string, userId: string): Promise<unknown>;
}

/** The registry entry of such a repo. */
export function ownedDataOfRepo(name: string, models: readonly string[], repo: DocumentKeyedRepo): OwnedData {
  return {
    name,
    models,
    async moveDocument(from, to) {
      await repo.moveDocument(from.apiKeyId, from.organizationId, from.documentId, to);
    },
    async deleteDocuments({ apiKeyId, organizationId, documentIds }) {
      await repo.deleteDocuments(apiKeyId, organizationId, documentIds);
    },
    async deleteOrganization({ apiKeyId, organizationId }) {
      await repo.deleteOrganization(apiKeyId, organizationId);
    },
    async eraseUser({ apiKeyId, userId }) {
      await repo.deleteByUser(apiKeyId, userId);
    },
  };
}
