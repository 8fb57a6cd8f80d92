import { z } from 'zod';
import { named } from '../common/named.js';
import { ZComment, ZReaction } from '../comments/schemas.js';
import { ZNotification } from '../notifications/schemas.js';
import { ZRecording } from '../recordings/schemas.js';

/**
 * The items of Get All User Data: each feature's resource with the keys that
 * place it (a comment alone does not say which thread or document it is in).
 */
export const ZUserDataComment = named(
  'UserDataComment',
  ZComment.extend({ annotationId: z.string(), documentId: z.string(), organizationId: z.string() }),
);
export const ZUserDataReaction = named(
  'UserDataReaction',
  ZReaction.extend({ annotationId: z.string(), commentId: z.string(), documentId: z.string(), organizationId: z.string() }),
);
export const ZUserDataRecording = ZRecording;
export const ZUserDataNotification = ZNotification;
