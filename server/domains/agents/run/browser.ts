import { existsSync } from 'node:fs';
import type { Browser, BrowserContext, Page, Request, Route, WebSocketRoute } from 'playwright-core';
import { AppError } from '../../../lib/app-error.js';
import { assertAllowedUrl } from '../../../lib/outbound-http.js';
import type { ExecutionErrorCode } from './fetch-page.js';
import type { FetchOptions } from './findings.js';

/**
 * The browser the browser strategies and services render pages in: the
 * system Chromium driven by playwright-core. One browser per process,
 * launched on first need and closed once idle, so a server whose agents
 * never ask for a browser never starts one (nor loads playwright-core:
 * test/server/start-modules.test.ts). Each page visit gets a browser
 * context of its own (no cookies or storage shared between runs or pages)
 * with the run's device type.
 *
 * Every request the page makes passes the outbound guard's rules
 * (assertAllowedUrl) before Chromium sends it; see createRequestGuard for
 * what that does not cover.
 */

export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';
/** Read on each use, so an operator (or a test) can point it elsewhere without a restart of the module. */
export const browserPath = (): string => process.env.CHROMIUM_PATH ?? DEFAULT_CHROMIUM_PATH;
/** A browser is available when its executable exists; one that exists but cannot start fails its visit instead. */
export const browserInstalled = (): boolean => existsSync(browserPath());

export const BROWSER_UNAVAILABLE_MESSAGE = 'no browser is installed on this server, and the browser strategies and services need one (see docs/agents.md, "Browser")';

/** A browser left running costs ~100 MB; a minute covers the gap between the pages of a run. */
export const BROWSER_IDLE_MS = 60_000;
/** Taking the screenshot, reading styles and running axe after the page loaded; a page's scripts can make any of them hang. */
export const WORK_TIMEOUT_MS = 30_000;

export const VIEWPORTS = {
  desktop: { width: 1366, height: 768 },
  mobile: { width: 390, height: 844 },
} as const;

/** A visit that could not happen or failed; `message` is safe to show (no header, no secret, no browser log). */
export class BrowserError extends Error {
  constructor(
    readonly code: ExecutionErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'BrowserError';
  }
}

const LAUNCH_ARGS = [
  // Root (containers, CI) cannot start Chromium's sandbox. docs/agents.md ("Browser") says what that costs.
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  // The browser itself calls no one: every request seen by the guard is the page's.
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
];

let launched: Promise<Browser> | undefined;
let active = 0;
let idleTimer: NodeJS.Timeout | undefined;

function launch(): Promise<Browser> {
  const starting = (async () => {
    // On first use only: playwright-core is megabytes a server without browser agents never needs.
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: browserPath(),
      headless: true,
      args: LAUNCH_ARGS,
      timeout: 30_000,
      // The server's own shutdown closes it (closeBrowser); playwright-core still kills it if the process exits.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    browser.on('disconnected', () => {
      if (launched === starting) launched = undefined;
    });
    return browser;
  })();
  return starting;
}

async function acquire(): Promise<Browser> {
  active += 1;
  clearTimeout(idleTimer);
  try {
    launched ??= launch();
    const current = launched;
    try {
      return await current;
    } catch {
      if (launched === current) launched = undefined;
      // Playwright's launch error carries the browser's log and command line: for the operator's shell, not a run's result.
      throw new BrowserError('BROWSER_UNAVAILABLE', 'the browser is installed but could not start (see docs/agents.md, "Browser")');
    }
  } catch (error) {
    release();
    throw error;
  }
}

function release(): void {
  active -= 1;
  if (active > 0) return;
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    if (active === 0) void closeBrowser();
  }, BROWSER_IDLE_MS);
  idleTimer.unref();
}

/** Closes the process's browser, if one runs (idle, or the server shutting down). */
export async function closeBrowser(): Promise<void> {
  clearTimeout(idleTimer);
  const current = launched;
  launched = undefined;
  if (current === undefined) return;
  const browser = await current.catch(() => undefined);
  await browser?.close().catch(() => undefined);
}

/** Whether this process has a browser running or starting (tests). */
export const browserRunning = (): boolean => launched !== undefined;

type Refusal = (url: string) => Promise<string | undefined>;

/**
 * The outbound guard for a browser: why a URL the page (or a redirect)
 * asks for is refused, or undefined. The same rules as every fetch of a
 * run (assertAllowedUrl): http(s) only, no credentials in the URL, and
 * unless allowPrivate, no host that is or resolves to an address that is
 * not publicly routable. data: and blob: URLs carry their content and go
 * nowhere. Answers are kept per origin for one visit, so a page of 200
 * images costs one lookup per host.
 *
 * Limits: the check resolves the host, then Chromium resolves it again to
 * connect. A host whose DNS answers a public address to us and a private
 * one a moment later (DNS rebinding with a zero TTL) passes the check and
 * reaches the private address. Node fetches close that gap by checking at
 * connect time (guardedLookup); Chromium has no such hook. Closing it here
 * would mean sending the browser's traffic through a proxy that connects
 * with the guarded lookup, or fulfilling each request from Node
 * (route.fulfill with getResource). Not done: docs/agents.md ("Browser")
 * says so. Requests Chromium makes without a network request the route
 * sees (a <link rel=preconnect> opens a TCP connection and sends nothing)
 * are not checked either.
 */
export function createRequestGuard(options: { allowPrivate: boolean }): {
  refusal: Refusal;
  /** A context.route handler: continues the request or aborts it, telling `onRefused` first. */
  handle(route: Pick<Route, 'request' | 'abort' | 'continue'>, onRefused?: (request: Request, reason: string) => void): Promise<void>;
} {
  const answers = new Map<string, Promise<string | undefined>>();
  const refusal: Refusal = (raw) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return Promise.resolve('the URL is not a valid URL');
    }
    if (url.protocol === 'data:' || url.protocol === 'blob:') return Promise.resolve(undefined);
    const key = url.protocol === 'http:' || url.protocol === 'https:' ? `${url.protocol}//${url.host}/${url.username === '' && url.password === '' ? '' : 'credentials'}` : raw;
    let answer = answers.get(key);
    if (answer === undefined) {
      answer = assertAllowedUrl(raw, { allowPrivate: options.allowPrivate }).then(
        () => undefined,
        (error: unknown) => (error instanceof AppError ? error.message : 'the URL could not be checked'),
      );
      answers.set(key, answer);
    }
    return answer;
  };
  return {
    refusal,
    async handle(route, onRefused) {
      const request = route.request();
      const reason = await refusal(request.url());
      // A page closed meanwhile makes both throw: nothing is left to answer.
      if (reason === undefined) {
        await route.continue().catch(() => undefined);
        return;
      }
      onRefused?.(request, reason);
      await route.abort('blockedbyclient').catch(() => undefined);
    },
  };
}

export interface Visit {
  page: Page;
  finalUrl: string;
  /** The document's HTTP status; null when Chromium reported none (a data: URL). */
  status: number | null;
  viewport: { width: number; height: number };
}

export type VisitOptions = FetchOptions;

/**
 * Loads `url` in a fresh browser context and calls `work` on it; the
 * context is closed after, on the run's signal, and past the navigation
 * timeout (FetchOptions.timeoutMs) plus WORK_TIMEOUT_MS. Throws BrowserError.
 */
export async function visitPage<T>(url: string, options: VisitOptions, work: (visit: Visit) => Promise<T>): Promise<T> {
  if (!browserInstalled()) throw new BrowserError('BROWSER_UNAVAILABLE', BROWSER_UNAVAILABLE_MESSAGE);
  const guard = createRequestGuard({ allowPrivate: options.allowPrivate });
  // Before any browser starts: a refused page never needs one.
  const refused = await guard.refusal(url);
  if (refused !== undefined) throw new BrowserError('BLOCKED_URL', refused);
  if (options.signal.aborted) throw new BrowserError('CANCELLED', 'the visit was stopped');

  const browser = await acquire();
  let context: BrowserContext | undefined;
  let timedOut = false;
  let mainRefusal: string | undefined;
  const stop = () => void context?.close().catch(() => undefined);
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs + WORK_TIMEOUT_MS);
  options.signal.addEventListener('abort', stop, { once: true });
  try {
    const mobile = options.deviceType === 'mobile';
    const viewport = mobile ? VIEWPORTS.mobile : VIEWPORTS.desktop;
    context = await browser.newContext({
      viewport,
      userAgent: options.userAgent,
      isMobile: mobile,
      hasTouch: mobile,
      deviceScaleFactor: 1,
      // A service worker's requests would bypass the route below.
      serviceWorkers: 'block',
      acceptDownloads: false,
    });
    if (options.signal.aborted) stop();
    // Before the abort: the failed navigation must find why it failed.
    await context.route('**/*', (route) =>
      guard.handle(route, (request, reason) => {
        if (isMainDocument(request)) mainRefusal = reason;
      }),
    );
    // WebSockets do not pass context.route.
    await context.routeWebSocket(/.*/, async (socket: WebSocketRoute) => {
      if ((await guard.refusal(socket.url())) === undefined) socket.connectToServer();
      else await socket.close({ code: 1008, reason: 'refused by the outbound guard' }).catch(() => undefined);
    });
    const page = await context.newPage();
    let status: number | null = null;
    try {
      const response = await page.goto(url, { waitUntil: 'domcontentloaded', timeout: options.timeoutMs });
      status = response?.status() ?? null;
    } catch (error) {
      throw failure(error, { aborted: options.signal.aborted, timedOut, mainRefusal, timeoutMs: options.timeoutMs });
    }
    // An error page's rendering is not the page's.
    if (status !== null && (status < 200 || status > 299)) throw new BrowserError('CRAWLER_ERROR', `the page answered HTTP ${status}`);
    // Images and fonts matter to a screenshot and to contrast; a resource that never ends does not hold the visit.
    await page.waitForLoadState('load', { timeout: options.timeoutMs }).catch(() => undefined);
    try {
      return await work({ page, finalUrl: page.url(), status, viewport });
    } catch (error) {
      throw failure(error, { aborted: options.signal.aborted, timedOut, mainRefusal: undefined, timeoutMs: options.timeoutMs });
    }
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', stop);
    await context?.close().catch(() => undefined);
    release();
  }
}

function isMainDocument(request: Request): boolean {
  try {
    return request.isNavigationRequest() && request.frame().parentFrame() === null;
  } catch {
    return false; // a service worker's request has no frame
  }
}

function failure(error: unknown, state: { aborted: boolean; timedOut: boolean; mainRefusal: string | undefined; timeoutMs: number }): BrowserError {
  if (error instanceof BrowserError) return error;
  if (state.aborted) return new BrowserError('CANCELLED', 'the visit was stopped');
  if (state.mainRefusal !== undefined) return new BrowserError('BLOCKED_URL', state.mainRefusal);
  if (state.timedOut) return new BrowserError('TIMEOUT', `the page was not rendered within ${state.timeoutMs + WORK_TIMEOUT_MS} ms`);
  const message = error instanceof Error ? error.message : '';
  if (error instanceof Error && error.name === 'TimeoutError') return new BrowserError('TIMEOUT', `the page did not load within ${state.timeoutMs} ms`);
  // Chromium's net error names the cause without the browser's log (which could quote request details).
  const net = /net::ERR_[A-Z_]+/.exec(message)?.[0];
  if (net !== undefined) return new BrowserError('CRAWLER_ERROR', `the page could not be loaded (${net})`);
  if (/Download is starting/.test(message)) return new BrowserError('UNSUPPORTED', 'the page is a download, not a page a browser shows');
  return new BrowserError('CRAWLER_ERROR', 'the page could not be rendered');
}
