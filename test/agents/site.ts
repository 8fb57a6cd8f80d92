import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FetchOptions } from '../../server/domains/agents/run/findings.js';

/**
 * A small web site on 127.0.0.1, port 0, for the agent run's fetching:
 * pages with links (working, broken, redirected, disallowed, to a closed
 * port), Open Graph tags and an image of known size, robots.txt, a sitemap
 * index and a sitemap, a stylesheet and a JSON API.
 */

/** The first bytes of a PNG of the given size: signature and IHDR, all imageSize reads. */
export function pngHeader(width: number, height: number): Buffer {
  const header = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0);
  header.writeUInt32BE(13, 8);
  header.write('IHDR', 12, 'latin1');
  header.writeUInt32BE(width, 16);
  header.writeUInt32BE(height, 20);
  return header;
}

export interface Site {
  base: string;
  /** A port nothing listens on. */
  closedPort: number;
  /** Paths requested, in order, with their method. */
  requests: Array<{ method: string; path: string; authorization: boolean }>;
  close(): Promise<void>;
}

function page(title: string, head: string, body: string): string {
  return `<!doctype html><html><head><title>${title}</title>${head}</head><body>${body}</body></html>`;
}

export async function startSite(options: { robots?: boolean } = {}): Promise<Site> {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const closedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));

  const requests: Site['requests'] = [];
  let base = '';
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
    '/': (_req, res) =>
      html(
        res,
        page(
          'Home',
          `<meta property="og:title" content="Home"><meta property="og:description" content="The home page"><meta property="og:image" content="/og.png"><meta property="og:url" content="${base}/"><meta name="twitter:card" content="summary_large_image">` +
            `<style>body { color: red }</style><link rel="stylesheet" href="/style.css"><link rel="stylesheet" href="http://localhost:1/other.css"><script>alert(1)</script>`,
          `<nav><a href="/about">Menu about</a></nav><h1 onclick="track()">Welcome</h1><!-- a comment --><p>Read <a href="/about#team">About us</a>, <a href="/broken">Old post</a>, <a href="/redirect">Moved</a>, <a href="/private">Private</a>, <a href="http://127.0.0.1:${closedPort}/x">Elsewhere</a>, <a href="mailto:me@example.com">Mail</a>, <a href="/file.pdf">PDF</a> and <a href="/broken">Old post</a> again.</p>`,
        ),
      ),
    '/about': (_req, res) => html(res, page('About', '', `<p>About us.</p><a href="/">Home</a><a href="/deep?x=1#top">Deep</a>`)),
    '/deep?x=1': (_req, res) => html(res, page('Deep', '', '<p>Deep page.</p><a href="/">Home</a>')),
    '/private': (_req, res) => html(res, page('Private', '', '<p>Private.</p>')),
    '/redirect': (_req, res) => res.writeHead(302, { location: '/about' }).end(),
    '/og.png': (_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(pngHeader(600, 315)),
    '/style.css': (_req, res) => res.writeHead(200, { 'content-type': 'text/css' }).end('h1 { font-size: 2em }'),
    '/robots.txt': (_req, res) => {
      if (options.robots === false) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nDisallow: /private\n\nSitemap: ${base}/sitemap-index.xml\n`);
    },
    '/sitemap-index.xml': (_req, res) =>
      xml(res, `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${base}/sitemap.xml</loc></sitemap></sitemapindex>`),
    '/sitemap.xml': (_req, res) =>
      xml(
        res,
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${base}/</loc><lastmod>2025-01-01</lastmod></url><url><loc>${base}/about</loc></url></urlset>`,
      ),
  };
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization !== undefined });
    if (path.startsWith('/api/')) {
      const body: Buffer[] = [];
      req.on('data', (chunk: Buffer) => body.push(chunk));
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, path, body: Buffer.concat(body).toString('utf8') })));
      return;
    }
    const route = routes[path];
    if (route) route(req, res);
    else res.writeHead(404, { 'content-type': 'text/html' }).end('<p>Not found</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    closedPort,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function html(res: ServerResponse, body: string) {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
}

function xml(res: ServerResponse, body: string) {
  res.writeHead(200, { 'content-type': 'application/xml' }).end(body);
}

/** Fetch options for the local site: it is on loopback, so private addresses are allowed. */
export function localFetch(overrides: Partial<FetchOptions> = {}): FetchOptions {
  return { allowPrivate: true, timeoutMs: 3_000, maxBytes: 1024 * 1024, signal: new AbortController().signal, userAgent: 'CollabBackendAgent/1.0 (test)', ...overrides };
}
