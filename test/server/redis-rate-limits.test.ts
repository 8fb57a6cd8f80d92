import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postFrom } from '../helpers/post-from.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl) console.log('skipping Redis rate-limit tests: TEST_REDIS_URL is not set');

describe.skipIf(!redisUrl)('rate limits through Redis (REDIS_URL)', () => {
  let one: TestServer;
  let two: TestServer;
  beforeAll(async () => {
    const env = { REDIS_URL: redisUrl!, EMAIL_STATUS_LIMIT_PER_EMAIL: '4', AUTH_FAILURE_LIMIT_PER_IP: '3' };
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

  it('two server processes share the failed-authentication counter of an address', async () => {
    // From a loopback address of its own, so other runs against the same Redis keep their counters.
    const localAddress = `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 250)}`;
    const statuses: number[] = [];
    for (const [i, server] of [one, two, one, two].entries()) {
      statuses.push(await postFrom(server.url, '/v2/workspace/activityconfig/get', localAddress, { 'x-service-api-key': `ak_fake${i}`, 'x-service-auth-token': 'at_fake' }));
    }
    expect(statuses).toEqual([403, 403, 403, 429]);
  });
});
