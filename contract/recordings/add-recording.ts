import { z } from 'zod';
import { ZId } from '../access/schemas.js';
import { ZUserRef } from '../common/content.js';
import { operation, resultOf } from '../common/envelope.js';
import { ZRecording } from './schemas.js';
import { ADA } from '../access/examples.js';
import { WALKTHROUGH, WALKTHROUGH_VIDEO } from './examples.js';

/** 99:59:59.999: the longest duration `HH:MM:SS` shows with two hour digits. */
export const MAX_RECORDING_DURATION_MS = 359_999_999;
export const MAX_ATTACHMENTS = 20;
export const MAX_ATTACHMENT_URL_LENGTH = 2048;

const ZSafeCount = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** Attachment URLs are stored as given and never fetched by the server; only http(s) is accepted, so a client cannot be handed a `javascript:` link. */
export const ZAttachmentUrl = z
  .string()
  .min(1)
  .max(MAX_ATTACHMENT_URL_LENGTH)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
    } catch {
      return false;
    }
  }, { message: 'must be an absolute http(s) URL' });

export const ZAttachmentInput = z
  .object({
    attachmentId: ZSafeCount,
    url: ZAttachmentUrl,
    mimeType: z.string().min(1).max(255).describe('e.g. `video/webm`.'),
    name: z.string().max(512),
    type: z.string().min(1).max(64).describe('e.g. `video`, `audio`, `image`.'),
    size: ZSafeCount.describe('Bytes.'),
  })
  .strict();

export const ZAddRecordingData = z
  .object({
    organizationId: ZId,
    documentId: ZId,
    annotationId: ZId.optional().describe('Default: a new ID. ALREADY_EXISTS when the application has a recording with this ID.'),
    recordingType: z.string().min(1).max(64).describe('e.g. `screen`, `video`, `audio`.'),
    mode: z.string().min(1).max(64).describe('e.g. `floating`, `thread`.'),
    recordedTime: z
      .object({
        duration: z.number().int().min(0).max(MAX_RECORDING_DURATION_MS).describe('Milliseconds.'),
        display: z
          .string()
          .regex(/^\d{2}:[0-5]\d:[0-5]\d$/, { message: 'must be HH:MM:SS' })
          .optional()
          .describe('`HH:MM:SS`; default: computed from duration.'),
      })
      .strict(),
    displayName: z.string().max(512),
    attachments: z.array(ZAttachmentInput).max(MAX_ATTACHMENTS),
    latestVersion: z.number().int().min(0).max(2_147_483_647).optional().describe('Default 1.'),
    from: ZUserRef.describe('The recording user.'),
  })
  .strict();
export type TAddRecordingData = z.infer<typeof ZAddRecordingData>;

export const addRecording = operation({
  path: '/v2/recordings/add',
  summary: 'Add Recording',
  description:
    `Stores a recorder annotation (type \`recorder\`) on a document and publishes \`recorder.done\` in the same transaction. \`recordedTime.duration\` is in milliseconds (at most 99:59:59.999); \`display\` defaults to it as \`HH:MM:SS\`. At most ${MAX_ATTACHMENTS} attachments; their URLs must be absolute http(s) URLs of at most ${MAX_ATTACHMENT_URL_LENGTH} characters, are stored as given and never fetched by the server. Result: the stored recording. NOT_FOUND for an unknown organization or document; ALREADY_EXISTS for a taken annotationId.`,
  data: ZAddRecordingData,
  result: resultOf(ZRecording),
  example: {
    data: {
      organizationId: 'org-acme',
      documentId: 'doc-q3-plan',
      recordingType: 'screen',
      mode: 'floating',
      recordedTime: { duration: 95400 },
      displayName: 'Walkthrough of the Q3 budget',
      attachments: [WALKTHROUGH_VIDEO],
      from: ADA,
    },
    result: {
      status: 'success',
      message: 'Recording added.',
      data: WALKTHROUGH,
    },
  },
});
