import { z } from 'zod';
import { named } from '../common/named.js';
import { ZContentMetadata, ZTimestampMs, ZUserRef } from '../common/content.js';

export const ZAttachment = named(
  'RecordingAttachment',
  z.object({
    attachmentId: z.number(),
    url: z.string(),
    mimeType: z.string(),
    name: z.string(),
    type: z.string(),
    size: z.number(),
  }),
);

/** A recorder annotation. */
export const ZRecording = named(
  'Recording',
  z.object({
    type: z.literal('recorder'),
    annotationId: z.string(),
    recordingType: z.string().describe('e.g. `screen`, `video`, `audio`.'),
    mode: z.string().describe('e.g. `floating`, `thread`.'),
    metadata: ZContentMetadata,
    recordedTime: z.object({ duration: z.number(), display: z.string().describe('`HH:MM:SS`.') }),
    displayName: z.string(),
    from: ZUserRef.describe('Who recorded it.'),
    attachments: z.array(ZAttachment),
    latestVersion: z.number(),
    createdAt: ZTimestampMs,
  }),
);
export type TRecording = z.infer<typeof ZRecording>;
