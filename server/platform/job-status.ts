import { z } from 'zod';
import type { TJobStatus } from '../../contract/common/job-status.js';
import type { JobRecord } from './jobs.js';

/**
 * What a job handler returns when it decided that the work cannot be done
 * (e.g. a migration whose new document ID was taken meanwhile). Retrying
 * would not change that, so the job ends at once, and callers see `failed`
 * with this reason. Throwing is for what a retry may fix.
 */
const ZRefusal = z.object({ refused: z.string() });

export function refuseJob(reason: string): z.infer<typeof ZRefusal> {
  return { refused: reason };
}

/**
 * A job's state as the specification's Migration states, which Delete All
 * User Data shares: `pending` until a worker first claims it; `in_progress`
 * while it runs and while it waits to retry after a failed attempt;
 * `completed`; `failed` with a reason. A reason never carries the internal
 * error (it may hold driver messages): that stays in the log under the job ID.
 */
export function publicJobStatus(job: JobRecord): { status: TJobStatus; reason?: string } {
  switch (job.state) {
    case 'pending':
      return { status: job.attempts === 0 ? 'pending' : 'in_progress' };
    case 'running':
      return { status: 'in_progress' };
    case 'completed': {
      const refusal = ZRefusal.safeParse(job.result);
      return refusal.success ? { status: 'failed', reason: refusal.data.refused } : { status: 'completed' };
    }
    case 'failed':
      return { status: 'failed', reason: `an internal error stopped it after ${job.attempts} attempt(s); the server log has the cause under job ${job.id}` };
  }
}
