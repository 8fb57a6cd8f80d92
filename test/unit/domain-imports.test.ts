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
 * that needs live documents declares what it needs (the CRDT domain's
 * LiveDocuments, presence's PresenceLiveDocuments, live state's
 * LiveStateLiveDocuments) and services.ts hands it the hub. Cross-process
 * infrastructure they share with the rest of the server (the fan-out, the
 * presence directory) lives in server/platform.
 */
describe('server/domains', () => {
  it('imports nothing from server/realtime (type imports included)', () => {
    expect(domainImportsOfRealtime()).toEqual([]);
  });
});
