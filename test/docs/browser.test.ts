import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationMeta } from '../../contract/common/envelope.js';
import { generateToken, ZGenerateTokenData } from '../../contract/permissions/generate-token.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const missing = existsSync(executablePath) ? undefined : `no Chromium at ${executablePath} (apt-get install -y chromium, or set CHROMIUM_PATH)`;
if (missing) console.warn(`test/docs/browser.test.ts skipped: ${missing}`);

/** Git-ignored; CI keeps it as the picture of what a reader sees. */
const SCREENSHOT = join(import.meta.dirname, '..', '..', 'test-output', 'docs-generate-token.png');

// What the page must show is the contract's own example, not a copy of it.
const example = (generateToken.metadata as OperationMeta).example!;
const { userId } = ZGenerateTokenData.parse(example.data);
const { message } = z.object({ message: z.string() }).parse(example.result);

describe.skipIf(missing !== undefined)('GET /docs in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startTestServer();
    browser = await chromium.launch({
      executablePath,
      headless: true,
      // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start. The rest keep the
      // browser itself from calling home, so any request seen below is the page's.
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('renders the operations from this server alone and shows Generate Token with its examples', async () => {
    const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
    const origin = new URL(server.url).origin;
    const foreign: string[] = [];
    // Every request that reaches the network layer passes here; one for another origin fails the test.
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) return route.continue();
      foreign.push(url);
      return route.abort('blockedbyclient');
    });
    const errors: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(msg.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    const refused: string[] = [];
    page.on('requestfailed', (request) => {
      if (request.failure()?.errorText === 'csp') refused.push(request.url());
    });

    await page.goto(`${server.url}/docs`);
    // The operation list: the sidebar menu, one entry per tag, each opening onto its operations.
    const sidebar = page.getByRole('menu').first();
    const permissions = sidebar.getByRole('menuitem', { name: 'permissions', exact: true });
    await permissions.waitFor();
    expect(await sidebar.getByRole('menuitem', { name: 'comments', exact: true }).isVisible()).toBe(true);
    await permissions.click();
    const entry = sidebar.getByRole('menuitem', { name: 'Generate Token', exact: true });
    await entry.click();
    await page.waitForURL(/#tag\/permissions\/operation\/generateToken$/);

    const operation = page.locator('[data-section-id="tag/permissions/operation/generateToken"]');
    await operation.getByRole('heading', { name: 'Generate Token' }).waitFor();
    // Redoc splits JSON samples into token spans; the string values stay whole, in their quotes.
    const requestExample = operation.getByText(`"${userId}"`, { exact: true });
    const responseExample = operation.getByText(`"${message}"`, { exact: true });
    await requestExample.waitFor();
    await responseExample.waitFor();
    expect(await requestExample.isVisible()).toBe(true);
    expect(await responseExample.isVisible()).toBe(true);

    mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    console.log(`screenshot of /docs at Generate Token: ${SCREENSHOT}`);

    expect(foreign).toEqual([]);
    // Redoc's sidebar logo is hard-coded to https://cdn.redoc.ly and no option turns it off: the
    // page's CSP (img-src data:) refuses it inside the browser, before any request, and Chromium
    // reports that refusal as a console error. It is the one error the page may log.
    expect(refused).toEqual(['https://cdn.redoc.ly/redoc/logo-mini.svg']);
    expect(errors).toEqual([
      `Loading the image 'https://cdn.redoc.ly/redoc/logo-mini.svg' violates the following Content Security Policy directive: "img-src data:". The action has been blocked.`,
    ]);
    await page.close();
  });
});
