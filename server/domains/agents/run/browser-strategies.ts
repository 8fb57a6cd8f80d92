import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { z } from 'zod';
import type { GatherError } from './fetch-page.js';
import { BrowserError, visitPage } from './browser.js';
import { imageSize } from './services/image-size.js';
import type { FetchOptions } from './findings.js';

/**
 * The browser strategies, all from one visit of the page:
 * web-page-screenshot, computed-styles and web-page-accessibility (axe-core
 * run in the page). What the page's scripts hand back is the page's word
 * about itself: it is cut to size and checked for shape like any input.
 */

export interface PageScreenshot {
  mimeType: 'image/png';
  base64: string;
  width: number;
  height: number;
}

export interface ComputedStyles {
  selector: string;
  /** Elements the selector matched; at most MAX_STYLED_ELEMENTS are in `elements`. */
  count: number;
  elements: Array<{ text: string; styles: Record<string, string> }>;
  /** Set when the selector is not one the browser accepts. */
  error?: string;
}

export interface AccessibilityNode {
  /** axe's selector path (one entry per shadow root or frame). */
  target: string[];
  html: string;
  failureSummary: string;
  /** The element's text when short; '' otherwise. */
  text: string;
}

export interface AccessibilityViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  description: string;
  help: string;
  helpUrl: string;
  /** Elements in violation; at most MAX_NODES_PER_VIOLATION are in `nodes`. */
  nodeCount: number;
  nodes: AccessibilityNode[];
}

/** A full page can be very long (infinite scroll); past this the screenshot stops, ~30 screens of a desktop. */
export const MAX_SCREENSHOT_HEIGHT = 8000;
export const DEFAULT_STYLE_SELECTORS = ['body', 'h1', 'h2', 'h3', 'p', 'a', 'button'];
export const MAX_STYLE_SELECTORS = 50;
export const MAX_STYLED_ELEMENTS = 20;
/** What a model needs to judge typography, colour and spacing; the rest of ~350 properties is noise. */
export const STYLE_PROPERTIES = ['color', 'background-color', 'font-family', 'font-size', 'font-weight', 'line-height', 'margin', 'padding', 'display'];
export const MAX_VIOLATIONS = 100;
export const MAX_NODES_PER_VIOLATION = 20;
const MAX_HTML_CHARS = 300;
const MAX_NODE_TEXT = 200;

const ZStyleOptions = z.object({ selectors: z.array(z.string().min(1).max(500)).min(1) }).partial();

export interface BrowserFindings {
  finalUrl: string;
  status: number | null;
  screenshot?: PageScreenshot;
  computedStyles?: ComputedStyles[];
  accessibility?: AccessibilityViolation[];
  errors: GatherError[];
}

export async function gatherInBrowser(url: string, strategies: readonly string[], options: FetchOptions & { strategyOptions?: Record<string, unknown> }): Promise<BrowserFindings> {
  const errors: GatherError[] = [];
  let selectors = DEFAULT_STYLE_SELECTORS;
  let styles = strategies.includes('computed-styles');
  if (styles && options.strategyOptions?.['computed-styles'] !== undefined) {
    const parsed = ZStyleOptions.safeParse(options.strategyOptions['computed-styles']);
    if (!parsed.success) {
      errors.push({ strategy: 'computed-styles', code: 'UNSUPPORTED', message: 'strategyOptions.computed-styles must be {"selectors": ["css selector", ...]}' });
      styles = false;
    } else if (parsed.data.selectors !== undefined) {
      selectors = parsed.data.selectors;
      if (selectors.length > MAX_STYLE_SELECTORS) {
        errors.push({ strategy: 'computed-styles', code: 'UNSUPPORTED', message: `only the first ${MAX_STYLE_SELECTORS} of ${selectors.length} selectors were read` });
        selectors = selectors.slice(0, MAX_STYLE_SELECTORS);
      }
    }
  }
  const wanted = strategies.filter((strategy) => strategy !== 'computed-styles' || styles);
  if (wanted.length === 0) return { finalUrl: url, status: null, errors };

  const axeSource = wanted.includes('web-page-accessibility') ? await loadAxe() : undefined;
  try {
    return await visitPage(url, options, async ({ page, finalUrl, status, viewport }) => {
      const found: BrowserFindings = { finalUrl, status, errors };
      // Styles and axe first: the screenshot's resize to the full page would change what they read.
      if (wanted.includes('computed-styles')) found.computedStyles = await computedStylesOf(page, selectors);
      if (axeSource !== undefined) found.accessibility = await violationsOf(page, axeSource);
      if (wanted.includes('web-page-screenshot')) found.screenshot = await screenshotOf(page, viewport.width);
      return found;
    });
  } catch (error) {
    const code = error instanceof BrowserError ? error.code : 'INTERNAL';
    const message = error instanceof BrowserError ? error.message : 'internal error';
    for (const strategy of wanted) errors.push({ strategy, code, message });
    return { finalUrl: url, status: null, errors };
  }
}

async function screenshotOf(page: Page, width: number): Promise<PageScreenshot> {
  // With fullPage, Playwright trims the clip to the document: a short page gives its own height.
  const png = await page.screenshot({ type: 'png', fullPage: true, clip: { x: 0, y: 0, width, height: MAX_SCREENSHOT_HEIGHT }, animations: 'disabled' });
  const size = imageSize(png);
  return { mimeType: 'image/png', base64: png.toString('base64'), width: size?.width ?? width, height: size?.height ?? 0 };
}

// The page's own globals, as far as the functions below use them (this project's TypeScript has no DOM library).
interface PageElement {
  textContent: string | null;
}
interface PageGlobals {
  document: { querySelectorAll(selector: string): ArrayLike<PageElement>; querySelector(selector: string): PageElement | null };
  getComputedStyle(element: PageElement): { getPropertyValue(name: string): string };
  axe: { run(context: unknown, options: unknown): Promise<{ violations: Array<Record<string, unknown> & { nodes: Array<Record<string, unknown>> }> }> };
}

const ZStyles = z.array(
  z.object({
    selector: z.string(),
    count: z.number().int().min(0),
    elements: z.array(z.object({ text: z.string().max(200), styles: z.record(z.string(), z.string().max(500)) })).max(MAX_STYLED_ELEMENTS),
    error: z.string().max(200).optional(),
  }),
);

async function computedStylesOf(page: Page, selectors: string[]): Promise<ComputedStyles[]> {
  const raw = await page.evaluate(
    ({ selectors, properties, maxElements }) => {
      const g = globalThis as unknown as PageGlobals;
      return selectors.map((selector) => {
        let nodes: ArrayLike<PageElement>;
        try {
          nodes = g.document.querySelectorAll(selector);
        } catch {
          return { selector, count: 0, elements: [], error: 'not a selector this browser accepts' };
        }
        const elements = Array.from(nodes)
          .slice(0, maxElements)
          .map((element) => {
            const computed = g.getComputedStyle(element);
            return {
              text: (element.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 80),
              styles: Object.fromEntries(properties.map((name) => [name, computed.getPropertyValue(name).slice(0, 500)])),
            };
          });
        return { selector, count: nodes.length, elements };
      });
    },
    { selectors, properties: STYLE_PROPERTIES, maxElements: MAX_STYLED_ELEMENTS },
  );
  return ZStyles.parse(raw);
}

let axeSource: Promise<string> | undefined;
/** axe-core's browser build, read once: it runs in the page, never in this process. */
function loadAxe(): Promise<string> {
  axeSource ??= readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  return axeSource;
}

const ZViolations = z.array(
  z.object({
    id: z.string().max(200),
    impact: z.enum(['minor', 'moderate', 'serious', 'critical']).nullable(),
    description: z.string().max(2000),
    help: z.string().max(1000),
    helpUrl: z.string().max(1000),
    nodeCount: z.number().int().min(0),
    nodes: z
      .array(z.object({ target: z.array(z.string().max(1000)).max(20), html: z.string().max(MAX_HTML_CHARS), failureSummary: z.string().max(4000), text: z.string().max(MAX_NODE_TEXT) }))
      .max(MAX_NODES_PER_VIOLATION),
  }),
);

async function violationsOf(page: Page, source: string): Promise<AccessibilityViolation[]> {
  // Evaluated, not added as a <script>: a page's Content-Security-Policy does not apply to it.
  await page.evaluate(source);
  // No named helpers inside: tsx (npm run dev) would wrap them in a __name() call the page does not have.
  const raw = await page.evaluate(
    async ({ maxViolations, maxNodes, maxHtml, maxText }) => {
      const g = globalThis as unknown as PageGlobals;
      const result = await g.axe.run(g.document, { resultTypes: ['violations'] });
      return result.violations.slice(0, maxViolations).map((violation) => ({
        id: String(violation.id ?? '').slice(0, 200),
        impact: (['minor', 'moderate', 'serious', 'critical'] as const).find((impact) => impact === violation.impact) ?? null,
        description: String(violation.description ?? '').slice(0, 2000),
        help: String(violation.help ?? '').slice(0, 1000),
        helpUrl: String(violation.helpUrl ?? '').slice(0, 1000),
        nodeCount: violation.nodes.length,
        nodes: violation.nodes.slice(0, maxNodes).map((node) => {
          // Nested arrays are shadow DOM paths: kept as their outermost selector.
          const target = (Array.isArray(node.target) ? node.target : []).slice(0, 20).map((part: unknown) => String((Array.isArray(part) ? part[0] : part) ?? '').slice(0, 1000));
          let text = '';
          if (target.length === 1) {
            try {
              const content = (g.document.querySelector(target[0]!)?.textContent ?? '').replace(/\s+/g, ' ').trim();
              if (content.length <= maxText) text = content;
            } catch {
              // a selector axe wrote and the page cannot read back: no text
            }
          }
          return { target, html: String(node.html ?? '').slice(0, maxHtml), failureSummary: String(node.failureSummary ?? '').slice(0, 4000), text };
        }),
      }));
    },
    { maxViolations: MAX_VIOLATIONS, maxNodes: MAX_NODES_PER_VIOLATION, maxHtml: MAX_HTML_CHARS, maxText: MAX_NODE_TEXT },
  );
  return ZViolations.parse(raw);
}
