import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverPages } from '../../server/domains/agents/run/crawl.js';
import { localFetch, startSite, type Site } from './site.js';

let site: Site;
beforeAll(async () => {
  site = await startSite();
});
afterAll(() => site.close());

describe('discoverPages', () => {
  it('goes breadth-first over same-origin links, honouring robots.txt', async () => {
    const found = await discoverPages(`${site.base}/#top`, 50, localFetch());
    expect(found.urls).toEqual([`${site.base}/`, `${site.base}/about`, `${site.base}/broken`, `${site.base}/redirect`, `${site.base}/deep?x=1`]);
    expect(found.skipped).toEqual([
      { url: `${site.base}/private`, reason: 'disallowed by robots.txt' },
      { url: `${site.base}/file.pdf`, reason: 'not a page (a file by its extension)' },
    ]);
    expect(found.visited.find((page) => page.url === `${site.base}/`)).toMatchObject({ status: 200, title: 'Home', linksCount: 6 });
    expect(found.visited.find((page) => page.url === `${site.base}/broken`)).toMatchObject({ status: 404 });
    expect(found.visited.find((page) => page.url === `${site.base}/redirect`)).toMatchObject({ status: 200, finalUrl: `${site.base}/about` });
  });

  it('stops at max, the seed included', async () => {
    expect((await discoverPages(`${site.base}/`, 1, localFetch())).urls).toEqual([`${site.base}/`]);
    expect((await discoverPages(`${site.base}/`, 3, localFetch())).urls).toHaveLength(3);
  });

  it('skips a disallowed seed', async () => {
    const found = await discoverPages(`${site.base}/private`, 10, localFetch());
    expect(found.urls).toEqual([]);
    expect(found.skipped).toEqual([{ url: `${site.base}/private`, reason: 'disallowed by robots.txt' }]);
  });

  it('stops when the signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const found = await discoverPages(`${site.base}/`, 10, localFetch({ signal: controller.signal }));
    // robots.txt could not be read (the fetch was stopped), so nothing is allowed.
    expect(found.urls).toEqual([]);
    expect(found.visited).toEqual([]);
  });
});
