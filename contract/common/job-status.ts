import { z } from 'zod';
import { named } from './named.js';

/** A background job as callers see it: the specification's Migration states, also used by Delete All User Data. */
export const ZJobStatus = named(
  'JobStatus',
  z
    .enum(['pending', 'in_progress', 'completed', 'failed'])
    .describe('`pending`: queued, not started; `in_progress`: running, or waiting to retry after a transient failure; `completed`; `failed` (see `reason`).'),
);
export type TJobStatus = z.infer<typeof ZJobStatus>;
