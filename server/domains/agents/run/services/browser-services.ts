import type { TExecutionError } from '../../../../../contract/agents/executions.js';
import { BROWSER_UNAVAILABLE_MESSAGE } from '../context.js';
import type { BuiltinService } from './service.js';

/** screenshot and accessibility-checker render the page; until this server runs a browser they end in BROWSER_UNAVAILABLE. */
export function browserUnavailable(serviceId: string): TExecutionError {
  return { code: 'BROWSER_UNAVAILABLE', message: `the ${serviceId} service ${BROWSER_UNAVAILABLE_MESSAGE}`, retryable: false };
}

const unavailable = (serviceId: string): BuiltinService => ({
  needs: [],
  run: async () => ({ findings: [], output: null, error: browserUnavailable(serviceId) }),
});

export const screenshot = unavailable('screenshot');
export const accessibilityChecker = unavailable('accessibility-checker');
