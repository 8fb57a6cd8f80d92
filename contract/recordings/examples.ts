import { ADA, Q3_PLAN_METADATA } from '../access/examples.js';
import type { TRecording } from './schemas.js';

/** The recording the examples follow: Ada's screen recording on the Q3 plan, with its one video. */

export const WALKTHROUGH_ID = 'rec_01KKHF5DYZ8Z7QFV04QCPF13YX';

export const WALKTHROUGH_VIDEO: TRecording['attachments'][number] = {
  attachmentId: 1,
  url: 'https://cdn.example.com/recordings/q3-budget-walkthrough.webm',
  mimeType: 'video/webm',
  name: 'q3-budget-walkthrough.webm',
  type: 'video',
  size: 8412730,
};

/** As Add Recording returns it and Get Recordings lists it. */
export const WALKTHROUGH: TRecording = {
  type: 'recorder',
  annotationId: WALKTHROUGH_ID,
  recordingType: 'screen',
  mode: 'floating',
  metadata: Q3_PLAN_METADATA,
  recordedTime: { duration: 95400, display: '00:01:35' },
  displayName: 'Walkthrough of the Q3 budget',
  from: ADA,
  attachments: [WALKTHROUGH_VIDEO],
  latestVersion: 1,
  createdAt: 1773334083551,
};
