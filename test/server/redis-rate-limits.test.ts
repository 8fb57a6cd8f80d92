import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl) console.log('skipping Redis rate-limit tests: TEST_REDIS_URL is not set');

describe.skipIf(!redisUrl)('rate limits through Redis (REDIS_URL)', () => {
  let one: TestServer;
  let two: TestServer;
  beforeAll(async () => {
    const env = { REDIS_URL: redisUrl!, EMAIL_STATUS_LIMIT_PER_EMAIL: '4' };
    one = await startTestServer(env);
    two = await startTestServer(env);
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
  });

  it('two server processes share one counter', async () => {
    const email = `shared-${Date.now()}-${Math.random()}@example.com`;
    const statuses: number[] = [];
    for (const server of [one, two, one, two, one]) {
      statuses.push((await server.post('/v2/workspace/email/status', { data: { ownerEmail: email } })).status);
    }
    expect(statuses).toEqual([404, 404, 404, 404, 429]);
  });
});
