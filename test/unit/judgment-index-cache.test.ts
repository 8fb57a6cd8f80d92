// The judgment index cache against a fake repo whose revision moves on every
// read and whose scans are slow: builds never overlap beyond their limits and
// no answer comes from an index older than the revision its request read.
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createJudgmentIndexCache } from '../../server/domains/memory/index-cache.js';
import type { JudgmentsRepo, SearchableRecord } from '../../server/domains/memory/repo.js';
import type { JudgmentIndex } from '../../server/domains/memory/search-index.js';

function fakeRepo(options: { advancing: boolean }) {
  const state = { revision: 0, builds: 0, active: 0, mostActive: 0, activePerApp: new Map<string, number>(), mostPerApp: 0 };
  const repo = {
    // Synchronous up to its return, so the revision a request reads is the one after `state.revision` when it called.
    async revision(_apiKeyId: string) {
      if (options.advancing || state.revision === 0) state.revision += 1;
      return { revision: state.revision, size: 1, postings: 1 };
    },
    async scan(apiKeyId: string): Promise<SearchableRecord[]> {
      // The judgment's ID is the revision when its rows were read: what the index holds.
      const seen = state.revision;
      state.builds += 1;
      state.active += 1;
      state.mostActive = Math.max(state.mostActive, state.active);
      const mine = (state.activePerApp.get(apiKeyId) ?? 0) + 1;
      state.activePerApp.set(apiKeyId, mine);
      state.mostPerApp = Math.max(state.mostPerApp, mine);
      await sleep(5);
      state.active -= 1;
      state.activePerApp.set(apiKeyId, mine - 1);
      const id = String(seen).padStart(8, '0');
      return [{ id, subject: 'marker', decision: 'approve', reason: 'r', reviewerId: 'u', organizationId: null, documentId: null, tags: [], decidedAt: 0n }];
    },
  };
  return { state, repo: repo as unknown as JudgmentsRepo };
}

const contents = (index: JudgmentIndex | null) => Number(index!.find('marker')[0]!.judgment.id);
const cacheOf = (repo: JudgmentsRepo, concurrentBuilds = 2) => createJudgmentIndexCache({ repo, capacity: 100, log: pino({ level: 'silent' }), concurrentBuilds });

describe('judgment index cache', () => {
  it('answers 30 simultaneous requests of one application from one build', async () => {
    const { state, repo } = fakeRepo({ advancing: true });
    const cache = cacheOf(repo);
    const requests = Array.from({ length: 30 }, () => {
      const read = state.revision + 1;
      return cache.current('app').then((index) => expect(contents(index)).toBeGreaterThanOrEqual(read));
    });
    await Promise.all(requests);
    expect(state.builds).toBe(1);
  });

  it('runs one build per application at a time, and never answers from an index older than the request', async () => {
    const { state, repo } = fakeRepo({ advancing: true });
    const cache = cacheOf(repo);
    // 30 clients alternating a change (the revision moves on every read) and a suggestion.
    const client = async (n: number) => {
      for (let round = 0; round < 6; round++) {
        await sleep((n * 7 + round * 3) % 9);
        const read = state.revision + 1;
        expect(contents(await cache.current('app'))).toBeGreaterThanOrEqual(read);
      }
    };
    await Promise.all(Array.from({ length: 30 }, (_, n) => client(n)));
    expect(state.mostPerApp).toBe(1);
    // Coalesced: far fewer builds than the 180 requests that each found the index stale.
    expect(state.builds).toBeLessThan(90);
  });

  it('runs at most the process limit of builds over many applications', async () => {
    for (const limit of [1, 2]) {
      const { state, repo } = fakeRepo({ advancing: true });
      const cache = cacheOf(repo, limit);
      await Promise.all(
        Array.from({ length: 20 }, async (_, n) => {
          for (let round = 0; round < 3; round++) {
            const read = state.revision + 1;
            expect(contents(await cache.current(`app-${n % 10}`))).toBeGreaterThanOrEqual(read);
          }
        }),
      );
      expect(state.mostActive).toBe(limit);
      expect(state.mostPerApp).toBe(1);
    }
  });

  it('reuses an index while the revision stays, labelled with the revision read before its rows', async () => {
    const { state, repo } = fakeRepo({ advancing: false });
    const cache = cacheOf(repo);
    const first = await cache.current('app');
    expect(await cache.current('app')).toBe(first);
    expect(state.builds).toBe(1);
    expect(cache.cached()).toEqual(['app']);
  });
});
