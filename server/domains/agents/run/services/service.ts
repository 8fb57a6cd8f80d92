import type { TExecutionError } from '../../../../../contract/agents/executions.js';
import type { PageContext } from '../context.js';
import type { DraftFinding, FetchOptions } from '../findings.js';

/** A built-in service (an agent's `execution.serviceId`), run on a page gathered with the strategies it `needs`. */
export interface BuiltinService {
  needs: readonly string[];
  run(page: PageContext, options: FetchOptions): Promise<ServiceResult>;
}

export interface ServiceResult {
  findings: DraftFinding[];
  output: unknown;
  /** Set when the service could not run at all. */
  error?: TExecutionError;
}
