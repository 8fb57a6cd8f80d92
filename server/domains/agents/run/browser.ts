import { existsSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import type { Browser, BrowserContext, Page, Request, Route, WebSocketRoute } from 'playwright-core';
import { AppError } from '../../../lib/app-error.js';
import { assertAllowedUrl, getResource, OutboundError, type GetResourceResult } from '../../../lib/outbound-http.js';
import { errorCodeOf, errorMessageOf, type ExecutionErrorCode } from './fetch-page.js';
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
 * Chromium sends nothing itself: every request the page makes is fetched
 * from Node through the outbound guard, which checks the address it
 * connects to, and handed back to the page (createRequestGuard).
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
  // Chromium resolves no host name or address itself, so what it would connect to on its own (a <link rel=preconnect>,
  // a redirect after an answer we handed it, a request Playwright does not route) fails before any connection.
  // Routed requests are fulfilled from Node (createRequestGuard) and never reach its resolver.
  '--host-resolver-rules=MAP * ~NOTFOUND',
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

/** Abort codes of route.abort; the page sees them as net::ERR_<CODE>. */
type AbortCode = 'aborted' | 'blockedbyclient' | 'timedout' | 'failed';

/** How the main document's request ended when it did not answer a page; the other requests just fail in the page. */
export interface MainDocumentHooks {
  failed(error: BrowserError): void;
  /** It answered a redirect to this absolute URL: the 3xx was handed to Chromium without its Location, for visitPage to follow. */
  redirected(to: string): void;
}

export interface RequestGuardOptions {
  allowPrivate: boolean;
  /** Each request's (FetchOptions.timeoutMs). */
  timeoutMs: number;
  /** Each resource's decoded body (FetchOptions.maxBytes): the main document is cut there like any page of a run, anything else past it fails. */
  maxBytes: number;
  /** Stops every fetch (the run's signal, the visit's end). */
  signal?: AbortSignal;
}

/** The page's fetches at once; past it they wait. Chromium does not limit requests it hands to us, and each holds up to maxBytes in memory. */
export const MAX_PARALLEL_FETCHES = 6;

/** Methods the page may use: a page rendered for analysis reads, it does not post forms or call APIs that change things. */
const READ_METHODS = new Set(['GET', 'HEAD']);

// Headers of the page's request that name its connection, not the request (hop-by-hop), or that Node's request sets itself.
const UNFORWARDED_REQUEST_HEADERS = new Set(['host', 'connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect', 'content-length', 'accept-encoding']);
// The body handed to Chromium is decoded and whole; hop-by-hop headers described Node's connection.
const UNFORWARDED_RESPONSE_HEADERS = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'proxy-connection', 'trailer', 'upgrade']);

/**
 * The outbound guard for a browser, as a context.route handler: every
 * request the page makes (http and https; data: and blob: never reach
 * the route) is fetched from Node with getResource and handed back with
 * route.fulfill, so Chromium connects to no one. getResource checks the
 * address it connects to (guardedLookup), so a host whose DNS answers a
 * public address to the first check and a private one a moment later
 * (DNS rebinding) is refused when it matters.
 *
 * First, `refusal`: the same rules as every fetch of a run
 * (assertAllowedUrl): http(s) only, no credentials in the URL, and unless
 * allowPrivate, no host that is or resolves to an address that is not
 * publicly routable. Answers are kept per origin for one visit, so a page
 * of 200 images costs one lookup per host; the connect-time check is made
 * for each request all the same.
 *
 * Only GET and HEAD are fetched: anything else (a form, a script's POST)
 * is aborted. Request headers are forwarded but for hop-by-hop ones and
 * those Node sets. Redirects of sub-resources and frames are followed in
 * Node, each hop checked again (a redirect handed to Chromium would be
 * followed by Chromium, outside the route), so such a resource is served
 * under its first URL; the main document's redirect is handed back to
 * visitPage (MainDocumentHooks), which navigates to it. A fetch that fails
 * (refused, timed out, too large, broken) aborts the request.
 */
export function createRequestGuard(options: RequestGuardOptions): {
  refusal: Refusal;
  /** The context.route handler; `main` hears how the main document's request ended (other requests ignore it). */
  handle(route: Pick<Route, 'request' | 'abort' | 'fulfill'>, main?: MainDocumentHooks): Promise<void>;
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
  const limited = limiter(MAX_PARALLEL_FETCHES);

  const fetchFor = async (request: Request, main: boolean): Promise<GetResourceResult> =>
    getResource(request.url(), {
      allowPrivate: options.allowPrivate,
      timeoutMs: options.timeoutMs,
      maxBytes: options.maxBytes,
      truncate: main,
      followRedirects: !main,
      method: request.method() === 'HEAD' ? 'HEAD' : 'GET',
      headers: forwardedHeaders(await request.allHeaders()),
      signal: options.signal,
    });

  return {
    refusal,
    async handle(route, main) {
      const request = route.request();
      const mainHooks = main !== undefined && isMainDocument(request) ? main : undefined;
      // A page closed meanwhile makes abort and fulfill throw: nothing is left to answer.
      const fail = async (error: BrowserError, code: AbortCode) => {
        mainHooks?.failed(error);
        await route.abort(code).catch(() => undefined);
      };
      const method = request.method();
      if (!READ_METHODS.has(method)) {
        await fail(new BrowserError('BLOCKED_URL', `the page's ${method.slice(0, 20)} request was refused: a page rendered for analysis only reads (GET, HEAD)`), 'blockedbyclient');
        return;
      }
      const reason = await refusal(request.url());
      if (reason !== undefined) {
        await fail(new BrowserError('BLOCKED_URL', reason), 'blockedbyclient');
        return;
      }
      let answer: GetResourceResult;
      try {
        // The main document waits behind no image: it is what the visit is for.
        answer = mainHooks === undefined ? await limited(() => fetchFor(request, false)) : await fetchFor(request, true);
      } catch (error) {
        await fail(new BrowserError(errorCodeOf(error), errorMessageOf(error)), abortCodeOf(error));
        return;
      }
      const location = mainHooks === undefined ? undefined : redirectLocation(answer, request.url());
      if (location !== undefined) mainHooks?.redirected(location);
      try {
        // Without Location, Chromium takes a redirect as the answer (its cookies kept) instead of following it itself.
        await route.fulfill({ status: answer.status, headers: answerHeaders(answer.headers, mainHooks !== undefined), body: answer.body });
      } catch {
        // A status or header Chromium will not take (or the page is gone).
        await route.abort('failed').catch(() => undefined);
      }
    },
  };
}

function forwardedHeaders(all: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(all).filter(([name]) => !name.startsWith(':') && !UNFORWARDED_REQUEST_HEADERS.has(name.toLowerCase())));
}

/** The answer's headers for route.fulfill: one value a name (Set-Cookie's values on lines of their own, as Playwright splits them). */
function answerHeaders(headers: IncomingHttpHeaders, dropLocation: boolean): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || UNFORWARDED_RESPONSE_HEADERS.has(name) || (dropLocation && name === 'location')) continue;
    kept[name] = Array.isArray(value) ? value.join(name === 'set-cookie' ? '\n' : ', ') : value;
  }
  return kept;
}

// The statuses getResource follows; another 3xx is an answer (a 304, a 300's list of choices).
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Where a redirect answer points, absolute; undefined for any other answer. */
function redirectLocation(answer: GetResourceResult, base: string): string | undefined {
  const location = answer.headers.location;
  if (!REDIRECT_STATUSES.has(answer.status) || typeof location !== 'string' || location === '') return undefined;
  try {
    return new URL(location, base).href;
  } catch {
    return undefined;
  }
}

function abortCodeOf(error: unknown): AbortCode {
  if (!(error instanceof OutboundError)) return 'failed';
  if (error.kind === 'blocked') return 'blockedbyclient';
  if (error.kind === 'timeout') return 'timedout';
  if (error.kind === 'aborted') return 'aborted';
  return 'failed';
}

/** Runs at most `max` tasks at once; the others wait their turn, in order. */
function limiter(max: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    // A finished task hands its slot to the next waiting one, so none slips in between.
    if (running < max) running += 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next === undefined) running -= 1;
      else next();
    }
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

/** Redirects of the document followed at most, as for a run's other fetches (getResource's default). */
export const MAX_DOCUMENT_REDIRECTS = 5;

/**
 * Loads `url` in a fresh browser context and calls `work` on it; the
 * context is closed after, on the run's signal, and past the navigation
 * timeout (FetchOptions.timeoutMs) plus WORK_TIMEOUT_MS. Every request of
 * the page is fetched from Node through createRequestGuard (each within
 * FetchOptions.timeoutMs and maxBytes; GET and HEAD only), the document's
 * redirects are followed here as navigations of their own, and WebSockets
 * are refused. Throws BrowserError.
 */
export async function visitPage<T>(url: string, options: VisitOptions, work: (visit: Visit) => Promise<T>): Promise<T> {
  if (!browserInstalled()) throw new BrowserError('BROWSER_UNAVAILABLE', BROWSER_UNAVAILABLE_MESSAGE);
  const visitEnd = new AbortController();
  const guard = createRequestGuard({ allowPrivate: options.allowPrivate, timeoutMs: options.timeoutMs, maxBytes: options.maxBytes, signal: AbortSignal.any([options.signal, visitEnd.signal]) });
  // Before any browser starts: a refused page never needs one.
  const refused = await guard.refusal(url);
  if (refused !== undefined) throw new BrowserError('BLOCKED_URL', refused);
  if (options.signal.aborted) throw new BrowserError('CANCELLED', 'the visit was stopped');

  const browser = await acquire();
  let context: BrowserContext | undefined;
  let timedOut = false;
  let navigation: Navigation | undefined;
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
    await context.route('**/*', (route) => guard.handle(route, navigation?.hooks));
    // WebSockets do not pass context.route, and connectToServer would connect from Chromium, past the connect-time check.
    await context.routeWebSocket(/.*/, (socket: WebSocketRoute) => socket.close({ code: 1008, reason: 'WebSockets are refused' }).catch(() => undefined));
    const page = await context.newPage();
    let status: number | null;
    try {
      status = await navigate(page, url, options.timeoutMs, () => (navigation = newNavigation()));
    } catch (error) {
      throw failure(error, { aborted: options.signal.aborted, timedOut, mainFailure: navigation?.failure, timeoutMs: options.timeoutMs });
    } finally {
      navigation = undefined;
    }
    // An error page's rendering is not the page's.
    if (status !== null && (status < 200 || status > 299)) throw new BrowserError('CRAWLER_ERROR', `the page answered HTTP ${status}`);
    // Images and fonts matter to a screenshot and to contrast; a resource that never ends does not hold the visit.
    await page.waitForLoadState('load', { timeout: options.timeoutMs }).catch(() => undefined);
    try {
      return await work({ page, finalUrl: page.url(), status, viewport });
    } catch (error) {
      throw failure(error, { aborted: options.signal.aborted, timedOut, mainFailure: undefined, timeoutMs: options.timeoutMs });
    }
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', stop);
    visitEnd.abort();
    await context?.close().catch(() => undefined);
    release();
  }
}

/** One navigation of the main frame: what the guard told of its document. */
interface Navigation {
  hooks: MainDocumentHooks;
  failure?: BrowserError;
  redirect?: string;
}

function newNavigation(): Navigation {
  const state: Navigation = {
    hooks: {
      failed: (error) => (state.failure = error),
      redirected: (to) => (state.redirect = to),
    },
  };
  return state;
}

/**
 * Navigates to `url`, then to each redirect its document answers, within
 * one timeout for all; `begin` starts the record of each navigation. The
 * document's status, or null when Chromium reports none (a data: URL).
 * Throws goto's error as it is (visitPage reads the record to name it).
 */
async function navigate(page: Page, url: string, timeoutMs: number, begin: () => Navigation): Promise<number | null> {
  const deadline = performance.now() + timeoutMs;
  let target = url;
  for (let hops = 0; ; hops += 1) {
    const current = begin();
    const left = Math.floor(deadline - performance.now());
    if (left <= 0) throw new BrowserError('TIMEOUT', `the page did not load within ${timeoutMs} ms`);
    const response = await page.goto(target, { waitUntil: 'domcontentloaded', timeout: left });
    if (current.redirect === undefined) return response?.status() ?? null;
    if (hops >= MAX_DOCUMENT_REDIRECTS) throw new BrowserError('CRAWLER_ERROR', `the page redirects more than ${MAX_DOCUMENT_REDIRECTS} times`);
    const protocol = new URL(current.redirect).protocol;
    // Each hop is a request of its own through the guard; these schemes would not be.
    if (protocol !== 'http:' && protocol !== 'https:') throw new BrowserError('BLOCKED_URL', `the page redirects to a ${protocol.slice(0, 20)} URL; only http and https are followed`);
    target = current.redirect;
  }
}

function isMainDocument(request: Request): boolean {
  try {
    return request.isNavigationRequest() && request.frame().parentFrame() === null;
  } catch {
    return false; // a service worker's request has no frame
  }
}

function failure(error: unknown, state: { aborted: boolean; timedOut: boolean; mainFailure: BrowserError | undefined; timeoutMs: number }): BrowserError {
  if (error instanceof BrowserError) return error;
  if (state.aborted) return new BrowserError('CANCELLED', 'the visit was stopped');
  if (state.mainFailure !== undefined) return state.mainFailure;
  if (state.timedOut) return new BrowserError('TIMEOUT', `the page was not rendered within ${state.timeoutMs + WORK_TIMEOUT_MS} ms`);
  const message = error instanceof Error ? error.message : '';
  if (error instanceof Error && error.name === 'TimeoutError') return new BrowserError('TIMEOUT', `the page did not load within ${state.timeoutMs} ms`);
  // Chromium's net error names the cause without the browser's log (which could quote request details).
  const net = /net::ERR_[A-Z_]+/.exec(message)?.[0];
  if (net !== undefined) return new BrowserError('CRAWLER_ERROR', `the page could not be loaded (${net})`);
  if (/Download is starting/.test(message)) return new BrowserError('UNSUPPORTED', 'the page is a download, not a page a browser shows');
  return new BrowserError('CRAWLER_ERROR', 'the page could not be rendered');
}
