import { z } from 'zod';
import { ZId } from '../access/schemas.js';
import { ZSortOrder, ZUserRef } from '../common/content.js';
import { emptyResult, operation, pagedResultOf, resultOf } from '../common/envelope.js';
import { named } from '../common/named.js';
import { ZPageSize, ZPageToken } from '../common/paging.js';
import {
  MAX_COMMENTS_PER_WRITE,
  MAX_FILTER_VALUES,
  MAX_IDS_PER_REQUEST,
  MAX_THREADS_PER_ADD,
  ZActionUser,
  ZContextInput,
  ZCustomListInput,
  ZLocationInput,
  ZNewThreadComment,
  ZPriorityInput,
  ZStatusInput,
  uniqueIds,
} from './inputs.js';
import { OPENED_THREAD, RESOLVED_THREAD, THREAD, THREAD_ID } from './examples.js';
import { ZCommentAnnotation, ZUserRefOrNull } from './schemas.js';

/** Comment threads (comment annotations) of a document: add, get, update, delete, count. */

const ZAnnotationIds = z
  .array(ZId)
  .min(1)
  .max(MAX_IDS_PER_REQUEST)
  .superRefine(uniqueIds((id: string) => id, 'annotationId'));

export const ZNewCommentAnnotation = named(
  'NewCommentAnnotation',
  z
    .object({
      annotationId: ZId.optional().describe('Unique in the application; generated (`ann_…`) when omitted. An ID that exists is ALREADY_EXISTS.'),
      from: ZUserRef.describe('Who opens the thread (the acting user of its `comment_annotation.add` event).'),
      location: ZLocationInput.optional(),
      status: ZStatusInput.optional(),
      priority: ZPriorityInput.optional(),
      assignedTo: ZUserRef.optional(),
      customList: ZCustomListInput.optional(),
      context: ZContextInput.optional(),
      commentData: z
        .array(ZNewThreadComment)
        .min(1)
        .max(MAX_COMMENTS_PER_WRITE)
        .superRefine(uniqueIds((c: { commentId?: string }) => c.commentId, 'commentId'))
        .describe(`The first comment(s) of the thread, in order (1 to ${MAX_COMMENTS_PER_WRITE}).`),
    })
    .strict(),
);

export const addCommentAnnotations = operation({
  path: '/v2/commentannotations/add',
  summary: 'Add Comment Annotations',
  description: [
    `Opens up to ${MAX_THREADS_PER_ADD} comment threads on one document, each with its first comment(s). All or nothing: an \`annotationId\` that exists (in any document of the application) is ALREADY_EXISTS and nothing is written; an ID given twice in the request is INVALID_ARGUMENT.`,
    'A missing organization or document is created (the document at the top of the organization, `organizationPrivate`), as Add Permissions does: client apps create documents by opening them.',
    '`status` defaults to `open`; `priority`, `assignedTo` and `context` to null, `customList` to `[]`. User references with only `userId` get `name` and `email` from the user record when there is one. Opening a thread marks it read for its author and commenters.',
    'Publishes one `comment_annotation.add` per thread (payload `{annotation}`, the thread with its comments; actor: the thread\'s `from`). Its first comments are part of that event: no `comment.add` is published for them.',
    'Result: the new threads, in request order.',
  ].join(' '),
  data: z
    .object({
      organizationId: ZId,
      documentId: ZId,
      commentAnnotations: z
        .array(ZNewCommentAnnotation)
        .min(1)
        .max(MAX_THREADS_PER_ADD)
        .superRefine(uniqueIds((a: { annotationId?: string }) => a.annotationId, 'annotationId')),
    })
    .strict(),
  result: resultOf(z.array(ZCommentAnnotation)),
  // IDs left out are generated; users given by ID alone are completed from their records.
  example: {
    data: {
      organizationId: 'org-acme',
      documentId: 'doc-q3-plan',
      commentAnnotations: [
        {
          from: { userId: 'user-ada' },
          location: { locationId: 'section-budget' },
          priority: 'high',
          assignedTo: { userId: 'user-grace' },
          commentData: [{ commentText: '@Grace Hopper can you double-check the hiring budget for Q3?', taggedUserContacts: [{ userId: 'user-grace' }] }],
        },
      ],
    },
    result: { status: 'success', message: 'Annotations added successfully.', data: [OPENED_THREAD] },
  },
});

export const getCommentAnnotations = operation({
  path: '/v2/commentannotations/get',
  summary: 'Get Comment Annotations',
  description: [
    `Threads of one document (\`documentId\`, NOT_FOUND when it does not exist) or of up to ${MAX_FILTER_VALUES} documents (\`documentIds\`; unknown ones have no threads); give one of the two. Filters (each optional, combined with AND): \`annotationIds\`, \`locationIds\`, \`statusIds\` (status values), \`type\`, \`sourceType\`, \`agentId\`.`,
    '`userId`: only threads the user is involved in (opened it, assigned to it, wrote or is mentioned in one of its comments), and the read is made FOR that user: threads of documents the user cannot read are left out, and so is a thread whose `context` the user\'s access fields on its document do not match (feature-level access context), and an agent suggestion of `private` visibility when the user is not a member of the organization. Paging skips what the user may not see, so pages stay full and each thread comes once.',
    'Ordered by creation time and annotationId, newest first (`order: asc` for oldest first); keyset-paged by an opaque pageToken (null on the last page), so a page costs the same wherever it is and threads added while paging are never skipped or repeated. Unknown organization: NOT_FOUND.',
  ].join(' '),
  data: z
    .object({
      organizationId: ZId,
      documentId: ZId.optional(),
      documentIds: z.array(ZId).min(1).max(MAX_FILTER_VALUES).optional(),
      annotationIds: z.array(ZId).min(1).max(MAX_IDS_PER_REQUEST).optional(),
      locationIds: z.array(ZId).min(1).max(MAX_FILTER_VALUES).optional(),
      statusIds: z.array(ZStatusInput).min(1).max(MAX_FILTER_VALUES).optional(),
      userId: ZId.optional().describe('The user the read is made for; only threads they are involved in and may see.'),
      type: z.enum(['comment', 'suggestion']).optional().describe('Only threads of this type (`suggestion`: agent findings).'),
      sourceType: z.enum(['user', 'agent']).optional().describe('Only threads opened by users, or only those written by agent runs.'),
      agentId: ZId.optional().describe('Only the threads of this agent.'),
      order: ZSortOrder,
      pageSize: ZPageSize,
      pageToken: ZPageToken,
    })
    .strict()
    .refine((d) => (d.documentId === undefined) !== (d.documentIds === undefined), {
      message: 'give documentId or documentIds (one of the two)',
      path: ['documentId'],
    }),
  result: pagedResultOf(ZCommentAnnotation),
  example: {
    data: { organizationId: 'org-acme', documentId: 'doc-q3-plan', statusIds: ['open'] },
    result: { status: 'success', message: 'Annotations fetched successfully.', data: [THREAD], pageToken: null },
  },
});

export const ZCommentAnnotationChanges = named(
  'CommentAnnotationChanges',
  z
    .object({
      status: ZStatusInput.optional(),
      priority: ZPriorityInput.nullable().optional().describe('null clears it.'),
      assignedTo: ZUserRefOrNull.optional().describe('null unassigns.'),
      customList: ZCustomListInput.optional(),
      context: ZContextInput.nullable().optional().describe('Replaces the context; null removes it.'),
      location: ZLocationInput.nullable().optional().describe('Replaces the location; null removes it.'),
    })
    .strict(),
);

export const updateCommentAnnotations = operation({
  path: '/v2/commentannotations/update',
  summary: 'Update Comment Annotations',
  description: [
    `Changes up to ${MAX_IDS_PER_REQUEST} threads of one document alike (\`updatedData\`: the fields given replace the stored ones), and/or sets \`actionUser\`'s read mark on them (\`markAs: read\`: everything in them now is read; \`markAs: unread\`: the mark is removed, so every comment by others counts as unread again). At least one of the two.`,
    'All or nothing: an annotationId that is not a thread of this document is NOT_FOUND and nothing is written.',
    'Publishes per thread, when the value changes: `comment_annotation.status_change` `{annotation, previousStatus, status}`, `comment_annotation.assign` `{annotation, previousAssignee, assignedTo}`, `comment_annotation.priority_change` `{annotation, previousPriority, priority}` (annotation: the thread after the update; actor: `actionUser`). Changes of `customList`, `context` and `location` publish no event; a read mark changes neither `lastUpdated` nor publishes anything.',
    'Result: the threads after the update, in the order of `annotationIds`.',
  ].join(' '),
  data: z
    .object({
      organizationId: ZId,
      documentId: ZId,
      annotationIds: ZAnnotationIds,
      actionUser: ZActionUser,
      updatedData: ZCommentAnnotationChanges.optional(),
      markAs: z.enum(['read', 'unread']).optional().describe("Sets or removes actionUser's read mark on the threads."),
    })
    .strict()
    .refine((d) => d.markAs !== undefined || (d.updatedData !== undefined && Object.keys(d.updatedData).length > 0), {
      message: 'give updatedData with at least one field, or markAs',
      path: ['updatedData'],
    }),
  result: resultOf(z.array(ZCommentAnnotation)),
  example: {
    data: { organizationId: 'org-acme', documentId: 'doc-q3-plan', annotationIds: [THREAD_ID], actionUser: { userId: 'user-grace' }, updatedData: { status: 'resolved' } },
    result: { status: 'success', message: 'Annotations updated successfully.', data: [RESOLVED_THREAD] },
  },
});

export const deleteCommentAnnotations = operation({
  path: '/v2/commentannotations/delete',
  summary: 'Delete Comment Annotations',
  description: `Deletes up to ${MAX_IDS_PER_REQUEST} threads of one document with their comments, reactions and read marks. All or nothing: an annotationId that is not a thread of this document is NOT_FOUND and nothing is deleted. Publishes one \`comment_annotation.delete\` per thread (payload \`{annotation}\`: the thread as it was; actor: \`actionUser\`).`,
  data: z.object({ organizationId: ZId, documentId: ZId, annotationIds: ZAnnotationIds, actionUser: ZActionUser }).strict(),
  result: emptyResult(),
  example: {
    data: { organizationId: 'org-acme', documentId: 'doc-q3-plan', annotationIds: [THREAD_ID], actionUser: { userId: 'user-ada' } },
    result: { status: 'success', message: 'Annotations deleted successfully.' },
  },
});

export const ZCommentAnnotationCount = named(
  'CommentAnnotationCount',
  z.object({
    total: z.number().int().nonnegative().describe('Threads of the document the user may see.'),
    unread: z.number().int().nonnegative().describe('Of those, threads with a comment by someone else created after the user last read the thread.'),
  }),
);

export const getCommentAnnotationsCount = operation({
  path: '/v2/commentannotations/count/get',
  summary: 'Get Comment Annotations Count',
  description: [
    `Per document (up to ${MAX_FILTER_VALUES}), the number of threads \`userId\` may see (the document readable by them, the thread's context matching their access fields, and for a \`private\` agent suggestion, their membership of the organization) and how many of those are unread, optionally only threads whose status is one of \`statusIds\`.`,
    'A thread is unread for a user when it has a comment written by someone else after the user\'s read mark on it (no mark: any comment by someone else). Writing in a thread (opening it, adding a comment) marks it read for the writer; Update Comment Annotations with `markAs` sets or removes the mark. Reactions and edits do not make a thread unread.',
    'Result keyed by documentId, one entry per document asked about (`{total: 0, unread: 0}` for unknown documents or documents the user cannot read). Unknown organization: NOT_FOUND.',
  ].join(' '),
  data: z
    .object({
      organizationId: ZId,
      documentIds: z.array(ZId).min(1).max(MAX_FILTER_VALUES),
      userId: ZId,
      statusIds: z.array(ZStatusInput).min(1).max(MAX_FILTER_VALUES).optional(),
    })
    .strict(),
  result: resultOf(z.record(ZCommentAnnotationCount)),
  // Grace's reply came after Ada last read the thread; Ada cannot read the restricted roadmap, so it counts nothing.
  example: {
    data: { organizationId: 'org-acme', documentIds: ['doc-q3-plan', 'doc-roadmap'], userId: 'user-ada' },
    result: {
      status: 'success',
      message: 'Comment count retrieved successfully.',
      data: { 'doc-q3-plan': { total: 1, unread: 1 }, 'doc-roadmap': { total: 0, unread: 0 } },
    },
  },
});
