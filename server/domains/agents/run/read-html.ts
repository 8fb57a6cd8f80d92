import { DomUtils, parseDocument } from 'htmlparser2';

/**
 * What the run reads from a page's HTML: its links, styles, meta tags and
 * title, and a copy cleaned of what executes. One parse serves them all.
 */

export type HtmlDocument = ReturnType<typeof parseDocument>;
type Element = ReturnType<typeof DomUtils.findAll>[number];
type Node = HtmlDocument['children'][number];

export interface PageLink {
  /** Absolute, without its fragment. */
  url: string;
  /** The first anchor's `href` as written (what a selector matches). */
  href: string;
  /** The first anchor's text, whitespace collapsed (its image's alt text when it has no text). */
  text: string;
  /** Same origin as the page. */
  internal: boolean;
  /** Which anchor with this same text the first one is, from 1 in document order. */
  occurrence: number;
  /** Anchors on the page that lead here. */
  count: number;
}

/** A page's links past this are left out: beyond it a page is a link farm, and checking them would take the run's whole deadline. */
export const MAX_LINKS = 1000;

export function parseHtml(html: string): HtmlDocument {
  return parseDocument(html, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true });
}

const collapse = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** The URL relative ones resolve against: `<base href>` when the page has one. */
export function baseUrlOf(doc: HtmlDocument, pageUrl: string): string {
  const base = DomUtils.findOne((el) => el.name === 'base' && DomUtils.hasAttrib(el, 'href'), doc.children, true);
  if (!base) return pageUrl;
  try {
    return new URL(DomUtils.getAttributeValue(base, 'href') ?? '', pageUrl).href;
  } catch {
    return pageUrl;
  }
}

/** An http(s) URL resolved against `base`, without fragment; undefined otherwise. */
export function resolveHttpUrl(href: string, base: string): string | undefined {
  let url: URL;
  try {
    url = new URL(href.trim(), base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.hash = '';
  return url.href;
}

/**
 * The page's `<a href>` links, one per URL. Only http and https: mailto:,
 * tel:, javascript: and data: lead to no page, so neither a link check nor
 * a crawl can do anything with them.
 */
export function linksOf(doc: HtmlDocument, pageUrl: string): PageLink[] {
  const base = baseUrlOf(doc, pageUrl);
  const origin = new URL(pageUrl).origin;
  const byUrl = new Map<string, PageLink>();
  const textSeen = new Map<string, number>();
  for (const anchor of DomUtils.findAll((el) => el.name === 'a' && DomUtils.hasAttrib(el, 'href'), doc.children)) {
    const href = DomUtils.getAttributeValue(anchor, 'href') ?? '';
    const text = collapse(DomUtils.textContent(anchor)) || altTextOf(anchor);
    const occurrence = (textSeen.get(text) ?? 0) + 1;
    textSeen.set(text, occurrence);
    const url = resolveHttpUrl(href, base);
    if (url === undefined) continue;
    const known = byUrl.get(url);
    if (known) {
      known.count += 1;
      continue;
    }
    if (byUrl.size >= MAX_LINKS) continue;
    byUrl.set(url, { url, href, text, internal: new URL(url).origin === origin, occurrence, count: 1 });
  }
  return [...byUrl.values()];
}

function altTextOf(anchor: Element): string {
  const image = DomUtils.findOne((el) => el.name === 'img' && DomUtils.hasAttrib(el, 'alt'), anchor.children, true);
  return image ? collapse(DomUtils.getAttributeValue(image, 'alt') ?? '') : '';
}

/** The text of every `<style>` element, in document order. */
export function inlineStylesOf(doc: HtmlDocument): string[] {
  return DomUtils.findAll((el) => el.name === 'style', doc.children)
    .map((el) => DomUtils.textContent(el))
    .filter((css) => css.trim() !== '');
}

/** The `<link rel=stylesheet>` URLs, absolute. */
export function stylesheetUrlsOf(doc: HtmlDocument, pageUrl: string): string[] {
  const base = baseUrlOf(doc, pageUrl);
  const links = DomUtils.findAll((el) => el.name === 'link' && /(^|\s)stylesheet(\s|$)/i.test(DomUtils.getAttributeValue(el, 'rel') ?? ''), doc.children);
  const urls = links.flatMap((el) => resolveHttpUrl(DomUtils.getAttributeValue(el, 'href') ?? '', base) ?? []);
  return [...new Set(urls)];
}

/** `<meta>` contents by `property` or `name` (lowercased); the first of each wins, as social crawlers read them. */
export function metaTagsOf(doc: HtmlDocument): Map<string, string> {
  const tags = new Map<string, string>();
  for (const el of DomUtils.findAll((node) => node.name === 'meta', doc.children)) {
    const key = (DomUtils.getAttributeValue(el, 'property') ?? DomUtils.getAttributeValue(el, 'name') ?? '').trim().toLowerCase();
    const content = DomUtils.getAttributeValue(el, 'content');
    if (key !== '' && content !== undefined && !tags.has(key)) tags.set(key, content.trim());
  }
  return tags;
}

export function titleOf(doc: HtmlDocument): string | undefined {
  const title = DomUtils.findOne((el) => el.name === 'title', doc.children, true);
  return title ? collapse(DomUtils.textContent(title)) : undefined;
}

// Elements whose content runs or is not part of the page as read.
const EXECUTING = new Set(['script', 'style', 'noscript', 'template']);

/**
 * The page's HTML without what runs or styles it: scripts, styles, comments,
 * event-handler attributes and javascript: URLs. What is left is the
 * content and structure a model reads; it is not a sanitizer for showing the
 * page to a user.
 */
export function cleanHtml(html: string): string {
  const doc = parseHtml(html);
  const strip = (nodes: Node[]) => {
    for (const node of [...nodes]) {
      if (node.type === 'comment') {
        DomUtils.removeElement(node);
      } else if (DomUtils.isTag(node)) {
        if (EXECUTING.has(node.name)) {
          DomUtils.removeElement(node);
          continue;
        }
        for (const name of Object.keys(node.attribs)) {
          const value = node.attribs[name] ?? '';
          if (name.startsWith('on') || /^\s*javascript:/i.test(value)) delete node.attribs[name];
        }
        strip(node.children);
      }
    }
  };
  strip(doc.children);
  return DomUtils.getOuterHTML(doc, { encodeEntities: 'utf8' });
}

/** A CSS attribute selector value, quoted: `a[href="…"]` must match even an href with quotes or backslashes in it. */
export function cssString(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&').replace(/\n/g, '\\a ').replace(/\r/g, '\\d ').replace(/\f/g, '\\c ')}"`;
}
