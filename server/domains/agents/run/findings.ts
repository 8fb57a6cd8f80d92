import type { TAgentFinding } from '../../../../contract/agents/executions.js';

/**
 * A finding as a context strategy, a service, the model or an MCP tool
 * produces it: the run gives it its `id` and, once annotated, its `commentId`.
 */
export type DraftFinding = Omit<TAgentFinding, 'id' | 'commentId'>;

/** How a fetch of the run goes out: through the one outbound guard, under the run's deadline. */
export interface FetchOptions {
  /** WEBHOOK_ALLOW_PRIVATE_URLS: loopback and private ranges only when the operator allows them. */
  allowPrivate: boolean;
  /** Per request; the run's own deadline comes through `signal`. */
  timeoutMs: number;
  /** A response body past this is cut (pages) or refused (see each caller). */
  maxBytes: number;
  /** Aborted when the run is cancelled, times out or loses its job lease: every fetch stops. */
  signal: AbortSignal;
  /** Sent as User-Agent: the run's device type decides it. */
  userAgent: string;
  /** The viewport a browser renders the page in (browser.ts); desktop when absent. */
  deviceType?: 'desktop' | 'mobile';
}
