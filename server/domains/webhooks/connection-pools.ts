import { guardedAgent } from '../../lib/outbound-http.js';

type Agents = ReturnType<typeof guardedAgent>;

/** Connection pools kept (one per endpoint recently delivered to). */
const MAX_POOLS = 1000;
/** An idle pooled connection is closed after this (receivers often close theirs at about 5 s). */
const IDLE_SOCKET_MS = 4_000;

/**
 * Connections per endpoint, never shared with another endpoint (nor another
 * application's on the same host): the dispatcher runs at most
 * `perEndpoint` tries per endpoint, so a try never waits for a socket and
 * its timeout is all its own.
 */
export function createConnectionPools(options: { perEndpoint: number }) {
  const pools = new Map<string, Agents>(); // endpointId → its agents, least recently used first
  const inUse = new Map<string, number>(); // endpointId → requests on its pool now

  function poolOf(endpointId: string): Agents {
    let pool = pools.get(endpointId);
    if (pool === undefined) {
      if (pools.size >= MAX_POOLS) {
        // The least recently used pool with no request on it (destroying an agent also ends its busy sockets).
        for (const [id, idle] of pools) {
          if (inUse.has(id)) continue;
          idle.http.destroy();
          idle.https.destroy();
          pools.delete(id);
          break;
        }
      }
      pool = guardedAgent({ maxSockets: options.perEndpoint, idleMs: IDLE_SOCKET_MS });
    } else {
      pools.delete(endpointId); // re-inserted below: most recently used last
    }
    pools.set(endpointId, pool);
    return pool;
  }

  return {
    /** Runs one request on the endpoint's pool. */
    async use<T>(endpointId: string, request: (agents: Agents) => Promise<T>): Promise<T> {
      const pool = poolOf(endpointId);
      inUse.set(endpointId, (inUse.get(endpointId) ?? 0) + 1);
      try {
        return await request(pool);
      } finally {
        const left = (inUse.get(endpointId) ?? 1) - 1;
        if (left === 0) inUse.delete(endpointId);
        else inUse.set(endpointId, left);
      }
    },

    /** Closes every pooled connection (after the last try). */
    destroy(): void {
      for (const pool of pools.values()) {
        pool.http.destroy();
        pool.https.destroy();
      }
      pools.clear();
    },
  };
}

export type ConnectionPools = ReturnType<typeof createConnectionPools>;
