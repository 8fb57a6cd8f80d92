import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract/index.js';
import { applicationOf } from '../../http/context.js';
import { done, ok, paged } from '../../http/respond.js';
import type { CommentsService } from './service.js';

export function commentsRouter(service: CommentsService) {
  return initServer().router(contract.comments, {
    addCommentAnnotations: async ({ req, body }) => ok('Annotations added successfully.', await service.addCommentAnnotations(applicationOf(req), body.data)),
    getCommentAnnotations: async ({ req, body }) => paged('Annotations fetched successfully.', await service.getCommentAnnotations(applicationOf(req), body.data)),
    updateCommentAnnotations: async ({ req, body }) =>
      ok('Annotations updated successfully.', await service.updateCommentAnnotations(applicationOf(req), body.data)),
    deleteCommentAnnotations: async ({ req, body }) => {
      await service.deleteCommentAnnotations(applicationOf(req), body.data);
      return done('Annotations deleted successfully.');
    },
    getCommentAnnotationsCount: async ({ req, body }) =>
      ok('Comment count retrieved successfully.', await service.getCommentAnnotationsCount(applicationOf(req), body.data)),

    addComments: async ({ req, body }) => ok('Comment(s) added successfully.', await service.addComments(applicationOf(req), body.data)),
    getComments: async ({ req, body }) => ok('Comments fetched successfully.', await service.getComments(applicationOf(req), body.data)),
    updateComment: async ({ req, body }) => ok('Comment updated successfully.', await service.updateComment(applicationOf(req), body.data)),
    deleteComments: async ({ req, body }) => {
      await service.deleteComments(applicationOf(req), body.data);
      return done('Comment(s) deleted successfully.');
    },

    addReaction: async ({ req, body }) => ok('Reaction added successfully.', await service.addReaction(applicationOf(req), body.data)),
    deleteReaction: async ({ req, body }) => {
      await service.deleteReaction(applicationOf(req), body.data);
      return done('Reaction deleted successfully.');
    },
  });
}
