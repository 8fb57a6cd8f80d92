import { creationCursor, cursorAt } from '../../db/keyset.js';
import { ANONYMOUS_USER, type OwnedData, type UserDataSource } from '../../platform/owned-data.js';
import type { CommentsRepo } from './repo.js';
import { toComment, toReaction } from './shapes.js';

/**
 * The comment tables in the owned-data registry. A document's threads,
 * comments, mentions, reactions and read marks follow it to a new ID and go
 * with it. Erasing a user removes what they wrote or hold (their comments
 * with the reactions on them, their reactions, read marks and mentions of
 * them); a thread left without comments goes; threads others still write in
 * stay readable, opened by ANONYMOUS_USER instead of them, unassigned when
 * they were the assignee.
 */
export function commentsOwnedData(repo: CommentsRepo): OwnedData {
  return {
    name: 'comments',
    models: ['CommentAnnotation', 'Comment', 'CommentMention', 'CommentReaction', 'CommentReadMark'],
    moveDocument: (from, to) => repo.moveDocument(from, to),
    deleteDocuments: ({ apiKeyId, organizationId, documentIds }) => repo.deleteDocuments(apiKeyId, organizationId, [...documentIds]),
    deleteOrganization: ({ apiKeyId, organizationId }) => repo.deleteOrganization(apiKeyId, organizationId),
    async eraseUser({ apiKeyId, userId }) {
      const touched = await repo.threadsTouchedBy(apiKeyId, userId);
      await repo.deleteUserContent(apiKeyId, userId);
      for (const comment of await repo.commentsOfThreads(apiKeyId, touched)) {
        const tagged = comment.taggedUsers;
        if (tagged.some((u) => u.userId === userId)) {
          await repo.setTaggedUsers(apiKeyId, comment.annotationId, comment.id, tagged.filter((u) => u.userId !== userId));
        }
      }
      await repo.deleteThreadsById(apiKeyId, await repo.emptyThreads(apiKeyId, touched));
      await repo.anonymizeThreadAuthor(apiKeyId, userId, ANONYMOUS_USER);
      await repo.unassign(apiKeyId, userId);
    },
  };
}

/** Get All User Data: the comments a user wrote or is mentioned in, and the reactions they made. */
export function commentsUserData(repo: CommentsRepo): UserDataSource[] {
  return [
    {
      feature: 'comments',
      async list({ apiKeyId, organizationId, userId }, after, take) {
        const rows = await repo.userComments(apiKeyId, organizationId, userId, after, take);
        return rows.map((row) => ({
          item: { ...toComment(row), annotationId: row.annotationId, documentId: row.documentId, organizationId: row.organizationId },
          cursor: cursorAt(row.createdAt, row.orderKey),
        }));
      },
    },
    {
      feature: 'reactions',
      async list({ apiKeyId, organizationId, userId }, after, take) {
        const rows = await repo.userReactions(apiKeyId, organizationId, userId, after, take);
        return rows.map((row) => ({
          item: { ...toReaction(row), annotationId: row.annotationId, commentId: row.commentId, documentId: row.documentId, organizationId: row.organizationId },
          cursor: creationCursor(row),
        }));
      },
    },
  ];
}
