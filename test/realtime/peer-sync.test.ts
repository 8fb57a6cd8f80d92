// createPeerSync on two Hocuspocus instances that share documents through the
// Redis extension, as two server processes do (REDIS_URL). No database: what
// a copy holds comes from the other instance or nowhere.
import { randomUUID } from 'node:crypto';
import { Redis as RedisExtension } from '@hocuspocus/extension-redis';
import { Hocuspocus } from '@hocuspocus/server';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createPeerSync } from '../../server/realtime/peer-sync.js';

const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl) console.log('skipping peer-sync tests: TEST_REDIS_URL is not set');

describe.skipIf(!redisUrl)('catching a document up with the other processes holding it', () => {
  // A prefix of this run's own, so parallel runs on the same Redis never meet.
  const prefix = `collab:test:peer-sync:${randomUUID()}`;
  const instances: Hocuspocus[] = [];
  const log = pino({ level: 'silent' });

  function processWithRedis(name: string) {
    const redis = new RedisExtension({
      createClient: () => new Redis(redisUrl!, { enableReadyCheck: false }),
      prefix,
      identifier: `${name}-${randomUUID()}`,
      disconnectDelay: 0,
    });
    const hocuspocus = new Hocuspocus({ name, quiet: true, extensions: [redis] });
    instances.push(hocuspocus);
    return { hocuspocus, peers: createPeerSync(redis, log) };
  }

  afterAll(async () => {
    for (const hocuspocus of instances) {
      hocuspocus.closeConnections();
      await hocuspocus.hooks('onDestroy', { instance: hocuspocus });
    }
  });

  it('a copy loaded on one process gets what another process holds before catchUp resolves', async () => {
    const one = processWithRedis('one');
    const two = processWithRedis('two');
    const three = processWithRedis('three');
    const name = 'org/doc/editor';

    const held = await one.hocuspocus.openDirectConnection(name);
    await held.transact((doc) => doc.getText('content').insert(0, 'typed on one'));
    const alsoHeld = await three.hocuspocus.openDirectConnection(name);
    await three.peers.catchUp(alsoHeld.document!);
    await alsoHeld.transact((doc) => doc.getMap('meta').set('by', 'three'));

    // Two loads the document fresh: only the other processes hold its content, and the Redis
    // extension's own sync on load does not wait for their answers.
    const fresh = await two.hocuspocus.openDirectConnection(name);
    const started = performance.now();
    await two.peers.catchUp(fresh.document!);
    expect(fresh.document!.getText('content').toString()).toBe('typed on one');
    expect(fresh.document!.getMap('meta').get('by')).toBe('three');
    // Both others answered: it did not wait out the 1 s allowed for a process that does not.
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('resolves at once when no other process holds the document', async () => {
    const alone = processWithRedis('alone');
    const connection = await alone.hocuspocus.openDirectConnection('org/doc/only-here');
    const started = performance.now();
    await alone.peers.catchUp(connection.document!);
    // Far below the 1 s it waits for a process that does not answer.
    expect(performance.now() - started).toBeLessThan(500);
  });
});
