import { convert } from 'html-to-text';
import { gatherInBrowser, type AccessibilityViolation, type ComputedStyles, type PageScreenshot } from './browser-strategies.js';
import { errorCodeOf, errorMessageOf, fetchWith, isHtml, isSuccess, type GatherError } from './fetch-page.js';
import type { FetchOptions } from './findings.js';
import { cleanHtml, inlineStylesOf, linksOf, parseHtml, stylesheetUrlsOf, type PageLink } from './read-html.js';
import { gatherRestApi, type RestApiResult } from './rest-api.js';
import { fetchRobots, type RobotsRules } from './robots.js';
import { gatherSitemap, type SitemapData } from './sitemap.js';

/**
 * Gathers what an agent's `contextGathering.strategies` ask for about one
 * page. Every strategy asked for either fills its field or adds an error
 * naming it; one failed strategy does not stop the others.
 */

export interface PageStylesheet {
  /** The stylesheet's URL; absent for an inline `<style>`. */
  href?: string;
  text: string;
}

export interface PageContext {
  url: string;
  /** After redirects; `url` when the page was not fetched. */
  finalUrl: string;
  /** The page's HTTP status; null when no strategy needed the page itself. */
  status: number | null;
  /** web-page-html: without scripts, styles, comments and event handlers. */
  html?: string;
  /** web-page-text: the readable text. */
  text?: string;
  /** web-page-css. */
  css?: PageStylesheet[];
  /** web-page-links. */
  links?: PageLink[];
  /** robots-txt. */
  robots?: { url: string; txt: string; allowed: boolean };
  /** sitemap-data. */
  sitemap?: SitemapData;
  /** rest-api. */
  restApiData?: RestApiResult[];
  /** web-page-screenshot: a full-page PNG (browser-strategies.ts). */
  screenshot?: PageScreenshot;
  /** computed-styles. */
  computedStyles?: ComputedStyles[];
  /** web-page-accessibility: axe-core's violations. */
  accessibility?: AccessibilityViolation[];
  errors: GatherError[];
}

export type GatherOptions = FetchOptions & { strategyOptions?: Record<string, unknown> };

/** Strategies read from the page's HTML: one fetch serves them all. */
export const PAGE_STRATEGIES = ['web-page-text', 'web-page-html', 'web-page-css', 'web-page-links'] as const;
/** Strategies read from the page rendered in a browser (browser.ts): one visit serves them all. */
export const BROWSER_STRATEGIES = ['web-page-screenshot', 'computed-styles', 'web-page-accessibility'] as const;
export const OTHER_STRATEGIES = ['robots-txt', 'sitemap-data', 'rest-api'] as const;
export const KNOWN_STRATEGIES: readonly string[] = [...PAGE_STRATEGIES, ...BROWSER_STRATEGIES, ...OTHER_STRATEGIES];

/** Text past this is cut: a model's context is the limit, and 200 KB is beyond what a page's prose needs. */
export const MAX_TEXT_CHARS = 200_000;
/** Stylesheets fetched per page at most, each a fetch of up to maxBytes. */
export const MAX_STYLESHEETS = 10;

const TEXT_OPTIONS = {
  wordwrap: false as const,
  // Navigation, scripts and media say little about the page's own content; link targets are the links strategy's.
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'nav', format: 'skip' },
    { selector: 'script', format: 'skip' },
    { selector: 'style', format: 'skip' },
    { selector: 'noscript', format: 'skip' },
    { selector: 'svg', format: 'skip' },
    { selector: 'template', format: 'skip' },
    // As written: findings quote the page's text, and an upper-cased heading would not match it.
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
    { selector: 'table', options: { uppercaseHeaderCells: false } },
  ],
};

export function readableText(html: string): string {
  return convert(html, TEXT_OPTIONS).slice(0, MAX_TEXT_CHARS);
}

export async function gatherContext(url: string, strategies: readonly string[], options: GatherOptions): Promise<PageContext> {
  const context: PageContext = { url, finalUrl: url, status: null, errors: [] };
  const asked = new Set(strategies);
  const fail = (strategy: string, code: GatherError['code'], message: string) => context.errors.push({ strategy, code, message });

  for (const strategy of asked) {
    if (!KNOWN_STRATEGIES.includes(strategy)) fail(strategy, 'UNSUPPORTED', `unknown context strategy ${JSON.stringify(strategy.slice(0, 100))}`);
  }

  const pageStrategies = PAGE_STRATEGIES.filter((strategy) => asked.has(strategy));
  if (pageStrategies.length > 0) await gatherFromPage(context, pageStrategies, options);
  const browserStrategies = BROWSER_STRATEGIES.filter((strategy) => asked.has(strategy));
  if (browserStrategies.length > 0) {
    const found = await gatherInBrowser(url, browserStrategies, options);
    if (context.status === null) {
      context.finalUrl = found.finalUrl;
      context.status = found.status;
    }
    if (found.screenshot !== undefined) context.screenshot = found.screenshot;
    if (found.computedStyles !== undefined) context.computedStyles = found.computedStyles;
    if (found.accessibility !== undefined) context.accessibility = found.accessibility;
    context.errors.push(...found.errors);
  }

  let robots: RobotsRules | undefined;
  if (asked.has('robots-txt') || asked.has('sitemap-data')) robots = await fetchRobots(url, options);
  if (robots && asked.has('robots-txt')) {
    context.robots = { url: robots.url, txt: robots.txt, allowed: robots.isAllowed(url) };
    if (robots.error) fail('robots-txt', robots.error.code, robots.error.message);
  }
  if (robots && asked.has('sitemap-data')) {
    const { data, errors } = await gatherSitemap(url, robots, options);
    context.sitemap = data;
    context.errors.push(...errors);
  }
  if (asked.has('rest-api')) {
    const { data, errors } = await gatherRestApi(url, options.strategyOptions?.['rest-api'], options);
    context.restApiData = data;
    context.errors.push(...errors);
  }
  return context;
}

async function gatherFromPage(context: PageContext, strategies: readonly string[], options: FetchOptions): Promise<void> {
  const failAll = (code: GatherError['code'], message: string) => {
    for (const strategy of strategies) context.errors.push({ strategy, code, message });
  };
  let page;
  try {
    page = await fetchWith(context.url, options);
  } catch (error) {
    failAll(errorCodeOf(error), `the page could not be fetched: ${errorMessageOf(error)}`);
    return;
  }
  context.finalUrl = page.finalUrl;
  context.status = page.status;
  // An error page's content is not the page's.
  if (!isSuccess(page.status)) {
    failAll('CRAWLER_ERROR', `the page answered HTTP ${page.status}`);
    return;
  }
  if (!isHtml(page.contentType)) {
    if (page.contentType === 'text/plain' && strategies.includes('web-page-text')) context.text = page.text.slice(0, MAX_TEXT_CHARS);
    for (const strategy of strategies) {
      if (strategy === 'web-page-text' && context.text !== undefined) continue;
      context.errors.push({ strategy, code: 'UNSUPPORTED', message: `the page is ${page.contentType}, not HTML` });
    }
    return;
  }

  const doc = parseHtml(page.text);
  if (strategies.includes('web-page-text')) context.text = readableText(page.text);
  if (strategies.includes('web-page-html')) context.html = cleanHtml(page.text);
  if (strategies.includes('web-page-links')) context.links = linksOf(doc, page.finalUrl);
  if (strategies.includes('web-page-css')) {
    const css: PageStylesheet[] = inlineStylesOf(doc).map((text) => ({ text }));
    const origin = new URL(page.finalUrl).origin;
    // Same origin only: a page's own styles are what an agent judges; CDNs' frameworks would be most of the text and none of the point.
    const sheets = stylesheetUrlsOf(doc, page.finalUrl).filter((href) => new URL(href).origin === origin);
    if (sheets.length > MAX_STYLESHEETS) context.errors.push({ strategy: 'web-page-css', code: 'UNSUPPORTED', message: `only the first ${MAX_STYLESHEETS} of ${sheets.length} stylesheets were read` });
    for (const href of sheets.slice(0, MAX_STYLESHEETS)) {
      try {
        const sheet = await fetchWith(href, options);
        if (isSuccess(sheet.status)) css.push({ href, text: sheet.text });
        else context.errors.push({ strategy: 'web-page-css', code: 'CRAWLER_ERROR', message: `stylesheet ${href} answered HTTP ${sheet.status}` });
      } catch (error) {
        context.errors.push({ strategy: 'web-page-css', code: errorCodeOf(error), message: `stylesheet ${href}: ${errorMessageOf(error)}` });
      }
    }
    context.css = css;
  }
}
