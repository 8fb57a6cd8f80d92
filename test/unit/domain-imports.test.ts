import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph } from '../helpers/import-graph.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Every import (type imports too) from a module under server/domains of a module under server/realtime, as `from -> to`. */
function domainImportsOfRealtime(): string[] {
  const found: string[] = [];
  for (const [from, targets] of importGraph(root, ['server/domains'], { types: true })) {
    for (const to of targets) if (to.startsWith('server/realtime/')) found.push(`${from} -> ${to}`);
  }
  return found.sort();
}

/**
 * The real-time layer depends on the domains, never the reverse: a domain
 * that needs live documents declares what it needs (as the CRDT domain's
 * LiveDocuments does) and services.ts hands it the hub. Presence and live
 * state still name the hub, the fan-out and the presence directory by type;
 * they are listed here until they are inverted too, so that the list can
 * only shrink.
 */
const NOT_YET_INVERTED = [
  'server/domains/live-state/delivery.ts -> server/realtime/fanout.ts',
  'server/domains/live-state/delivery.ts -> server/realtime/hub.ts',
  'server/domains/presence/awareness.ts -> server/realtime/fanout.ts',
  'server/domains/presence/awareness.ts -> server/realtime/hub.ts',
  'server/domains/presence/connected-users.ts -> server/realtime/hub.ts',
  'server/domains/presence/connected-users.ts -> server/realtime/presence-directory.ts',
];

describe('server/domains', () => {
  it('imports nothing from server/realtime (type imports included) beyond the presence and live-state modules listed', () => {
    expect(domainImportsOfRealtime()).toEqual(NOT_YET_INVERTED);
  });

  it('the CRDT domain imports nothing from server/realtime', () => {
    expect(domainImportsOfRealtime().filter((edge) => edge.startsWith('server/domains/crdt/'))).toEqual([]);
  });
});
