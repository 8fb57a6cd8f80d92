import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Router, type RequestHandler } from 'express';
import helmet from 'helmet';
import { repoRoot } from '../db/migrations-folder.js';
import { sendError } from './error-handler.js';
import { hasBody } from './operation.js';

/**
 * The policy of the API reference page and its bundle: nothing allowed but
 * what Redoc needs, each source found by driving the page in Chromium with the
 * directive removed (test/docs/browser.test.ts is the proof it suffices).
 * Every other response keeps helmet's default policy. No source names another
 * origin, so nothing the page does can reach a CDN.
 */
export const DOCS_CSP_DIRECTIVES = {
  'default-src': ["'none'"],
  // The bundle we serve. The page starts Redoc with the <redoc> element: no inline script, no eval.
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  // styled-components writes its rules into <style> elements at run time; without this the page is blank.
  'style-src': ["'unsafe-inline'"],
  // Redoc's icons are data: SVGs. Its sidebar logo (https://cdn.redoc.ly/redoc/logo-mini.svg, no
  // option turns it off) is refused here before any request leaves; Redoc then hides it.
  'img-src': ['data:'],
  // Redoc fetches the document (/openapi.json).
  'connect-src': ["'self'"],
  // The search index runs in a worker Redoc builds from a Blob; without it search finds nothing.
  'worker-src': ['blob:'],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'self'"],
  'object-src': ["'none'"],
  // Helmet's upgrade-insecure-requests is left out: over plain HTTP on any host but loopback it
  // turns the bundle's URL into https:// and the page stays blank; every source here is this origin anyway.
};

/** The standalone bundle (React and its peers inside), resolved where npm put it: redoc has no exports map. */
const redocPackage = createRequire(import.meta.url).resolve('redoc/package.json');
const redocVersion = (JSON.parse(readFileSync(redocPackage, 'utf8')) as { version: string }).version;
const bundlePath = join(dirname(redocPackage), 'bundles', 'redoc.standalone.js');
/** The version in the path lets browsers keep the bundle for a year: an upgrade changes the URL. */
export const DOCS_BUNDLE_URL = `/docs/assets/redoc-${redocVersion}.standalone.js`;
const ONE_YEAR_MS = 365 * 24 * 60 * 60 * 1000;

/**
 * `GET /docs`: the API reference, Redoc rendering the checked-in OpenAPI
 * document; `GET /openapi.json`: that document as it is in the repository.
 * Everything the page loads comes from this server (the Redoc bundle from
 * node_modules), never from a CDN. Public and outside the POST-only rule,
 * like the health probes.
 */
export function docsRoutes(): Router {
  // Read once, on the first request for either: every process would otherwise hold the ~1 MB
  // document (and parse all of it for its title while starting) for a page few ever open. The
  // file is what `npm run openapi` wrote and the drift check guards, the same for `npm run dev`
  // and the built dist/ (repoRoot walks up from either).
  let published: { document: Buffer; page: string; etag: string } | undefined;
  const reference = () => {
    if (published) return published;
    const document = readFileSync(join(repoRoot, 'openapi', 'openapi.json'));
    const title = (JSON.parse(document.toString('utf8')) as { info: { title: string } }).info.title;
    // ETags are off app-wide (operations are POSTs); this ~1 MB document is fetched on every page view, so it gets one.
    const etag = `"${createHash('sha256').update(document).digest('base64url').slice(0, 27)}"`;
    return (published = { document, page: renderPage(title), etag });
  };

  // A body on these GETs is refused unread, as on the JWKS routes (see matchOperation).
  const noBody: RequestHandler = (req, res, next) => {
    if (hasBody(req.headers)) return sendError(res, 'INVALID_ARGUMENT', `${req.method} ${req.path} takes no request body`);
    next();
  };
  // Replaces the header helmet() set before: the strict default stays on every other path.
  const docsPolicy = helmet.contentSecurityPolicy({ useDefaults: false, directives: DOCS_CSP_DIRECTIVES });

  const router = Router();
  router.get('/openapi.json', noBody, (req, res) => {
    const { document, etag } = reference();
    // The document changes with a deploy: a cache must not serve it without asking again.
    res.setHeader('cache-control', 'no-cache');
    res.setHeader('etag', etag);
    const known = req.headers['if-none-match']?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
    if (known) return res.status(304).end();
    res.type('application/json').send(document);
  });
  router.get('/docs', noBody, docsPolicy, (_req, res) => {
    res.setHeader('cache-control', 'no-cache');
    res.type('html').send(reference().page);
  });
  router.get(DOCS_BUNDLE_URL, noBody, docsPolicy, (_req, res, next) => {
    res.sendFile(bundlePath, { maxAge: ONE_YEAR_MS, immutable: true }, (error) => error && next(error));
  });
  return router;
}

function renderPage(title: string): string {
  // The icon link stops the browser's /favicon.ico request, which would only meet a 404.
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} — API reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<redoc spec-url="/openapi.json" json-sample-expand-level="all" path-in-middle-panel="true"></redoc>
<script src="${DOCS_BUNDLE_URL}"></script>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
