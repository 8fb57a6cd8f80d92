import { BROWSER_STRATEGIES, gatherContext, PAGE_STRATEGIES, type PageContext } from './context.js';
import { discoverPages } from './crawl.js';
import type { GatheredPage, RunStages } from './runner.js';
import { BUILTIN_SERVICES } from './services/catalog.js';

/**
 * The runner's stages on the real modules: the crawl, the context
 * strategies and the built-in services (each fetch through the outbound
 * guard), with the gathered context turned into the text a model reads.
 */
export const runStages: RunStages = {
  async discover(seed, max, options) {
    return (await discoverPages(seed, max, options)).urls;
  },

  async gather(url, strategies, options): Promise<GatheredPage> {
    const page = await gatherContext(url, strategies, options);
    const context = textOf(page);
    const errors = [...page.errors];
    // A page that could not be read ends the page, even if robots.txt or a REST API answered.
    const fromPage = strategies.filter((strategy) => (PAGE_STRATEGIES as readonly string[]).includes(strategy) || (BROWSER_STRATEGIES as readonly string[]).includes(strategy));
    const read = fromPage.some((strategy) => context[strategy] !== undefined);
    if (fromPage.length > 0 && !read) {
      const first = errors.find((error) => fromPage.includes(error.strategy)) ?? errors[0];
      errors.unshift({ strategy: 'page', code: first?.code ?? 'CRAWLER_ERROR', message: first?.message ?? 'the page could not be read' });
    }
    return { finalUrl: page.finalUrl, context, errors };
  },

  async service(serviceId, url, options) {
    const service = BUILTIN_SERVICES[serviceId];
    if (service === undefined) return { error: { code: 'UNSUPPORTED', message: `no built-in service ${serviceId}`, retryable: false } };
    const page = await gatherContext(url, service.needs, options);
    const fatal = page.errors.find((error) => service.needs.includes(error.strategy));
    if (fatal !== undefined) return { error: { code: fatal.code, message: fatal.message, retryable: fatal.code !== 'BROWSER_UNAVAILABLE' && fatal.code !== 'UNSUPPORTED' } };
    const result = await service.run(page, options);
    if (result.error !== undefined) return { error: result.error };
    return { findings: result.findings, output: result.output };
  },
};

/** Each strategy's output as the text the prompt carries under its name. */
function textOf(page: PageContext): Record<string, string> {
  const context: Record<string, string> = {};
  if (page.text !== undefined) context['web-page-text'] = page.text;
  if (page.html !== undefined) context['web-page-html'] = page.html;
  if (page.css !== undefined) context['web-page-css'] = page.css.map((sheet) => (sheet.href === undefined ? sheet.text : `/* ${sheet.href} */\n${sheet.text}`)).join('\n\n');
  if (page.links !== undefined) context['web-page-links'] = page.links.map((link) => `${link.internal ? 'internal' : 'external'} ${link.url} ${link.text}`).join('\n');
  if (page.robots !== undefined) context['robots-txt'] = `${page.robots.allowed ? 'This page is allowed' : 'This page is disallowed'} by ${page.robots.url}:\n${page.robots.txt}`;
  if (page.sitemap !== undefined) context['sitemap-data'] = page.sitemap.entries.map((entry) => JSON.stringify(entry)).join('\n');
  if (page.restApiData !== undefined) context['rest-api'] = JSON.stringify(page.restApiData);
  // The models are called with text only: the screenshot is named, not shown.
  if (page.screenshot !== undefined) context['web-page-screenshot'] = `A full-page screenshot was taken (PNG, ${page.screenshot.width}×${page.screenshot.height} px); the image itself is not part of this context.`;
  if (page.computedStyles !== undefined) context['computed-styles'] = JSON.stringify(page.computedStyles);
  if (page.accessibility !== undefined) context['web-page-accessibility'] = page.accessibility.length === 0 ? 'axe-core found no accessibility violations.' : JSON.stringify(page.accessibility);
  return context;
}
