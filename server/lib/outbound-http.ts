import { lookup as dnsLookup, promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import ipaddr from 'ipaddr.js';
import { AppError } from './app-error.js';

/**
 * Outbound HTTP to URLs our customers configure (permission provider,
 * webhooks, the pages and APIs agent runs fetch). A customer-controlled URL must not become a way to reach our own
 * network (SSRF): loopback, private ranges, cloud metadata, etc.
 */

/**
 * timeout: no complete answer in time; network: could not connect or the
 * connection broke; blocked: the host is or resolves to a refused address;
 * too_large: the response exceeded the cap; invalid_request: the URL or a
 * header is unusable (a configuration mistake, not an outage); aborted: the
 * caller's signal stopped it (a cancelled agent run).
 */
export type OutboundErrorKind = 'timeout' | 'network' | 'blocked' | 'too_large' | 'invalid_request' | 'aborted';

/**
 * `message` is safe to show whoever configured the URL; `detail` (resolved
 * address, port, socket error code, ipaddr.js range) is for the server log only.
 */
export class OutboundError extends Error {
  readonly detail: Record<string, unknown>;
  constructor(
    readonly kind: OutboundErrorKind,
    message: string,
    options?: { cause?: unknown; detail?: Record<string, unknown> },
  ) {
    super(message, options);
    this.name = 'OutboundError';
    this.detail = options?.detail ?? {};
  }
}

/** Where refused and failed requests are explained in full (a pino logger fits). */
export interface OutboundLog {
  warn(detail: object, message: string): void;
}

/** The log-only facts of a socket error: code, syscall, address, port. */
function socketDetail(error: unknown): Record<string, unknown> {
  const e = error as NodeJS.ErrnoException & { address?: string; port?: number };
  return { code: e?.code, syscall: e?.syscall, address: e?.address, port: e?.port, reason: e?.message };
}

const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

const PRIVATE_HINT = 'set WEBHOOK_ALLOW_PRIVATE_URLS=true to allow private addresses (e.g. in development)';

// Message for callers: it names the host they configured, never what it
// resolved to (that, and ports and socket codes, would map our network for
// whoever configures URLs; they go to the log through OutboundError.detail).
const NOT_PUBLIC = 'is, or resolves to, an address that is not publicly routable (private, loopback, link-local, reserved or an IPv6 form carrying an IPv4 address)';

// NAT64's well-known prefix (RFC 6052): a DNS64 resolver synthesizes these for
// IPv4-only hosts, so they are judged by the IPv4 address in their last 32 bits.
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');
// Deprecated IPv4-compatible addresses (::a.b.c.d, RFC 4291 2.5.5.1):
// ipaddr.js names only :: and ::1 in this block and calls the rest unicast.
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * The ipaddr.js range name of an address as we judge it: an IPv6 form that
 * carries an IPv4 address by design (IPv4-mapped, NAT64) is named by that
 * IPv4 address, e.g. `ipv4Mapped:loopback`. Other IPv4-embedding forms
 * (6to4, Teredo, SIIT `::ffff:0:a.b.c.d`, IPv4-compatible) keep their own
 * non-unicast names, so they are refused whatever they carry.
 */
export function addressRange(address: string): string {
  const bare = address.replace(/%.*$/, ''); // zone id (fe80::1%eth0)
  // node:net accepts only canonical forms, so 0x7f.1 and friends are not "addresses" here.
  if (isIP(bare) === 0 || !ipaddr.isValid(bare)) return 'invalid';
  if (isIP(bare) === 4) return ipaddr.IPv4.parse(bare).range();
  // ipaddr.js reads the dotted form ::a.b.c.d as IPv4-mapped (::ffff:a.b.c.d);
  // the URL parser's canonical hex form keeps it in the IPv4-compatible block.
  const v6 = ipaddr.IPv6.parse(new URL(`http://[${bare}]/`).hostname.slice(1, -1));
  if (v6.isIPv4MappedAddress()) return `ipv4Mapped:${v6.toIPv4Address().range()}`;
  if (v6.match(NAT64_WELL_KNOWN)) {
    const [a, b, c, d] = v6.toByteArray().slice(12);
    return `nat64:${new ipaddr.IPv4([a!, b!, c!, d!]).range()}`;
  }
  const range = v6.range();
  if (range === 'unicast' && v6.match(IPV4_COMPATIBLE)) return 'ipv4Compatible';
  return range;
}

/** Whether an IP address is one customers must not make us reach: anything but global unicast. */
export function isBlockedAddress(address: string): boolean {
  return !/(^|:)unicast$/.test(addressRange(address));
}

interface ParsedTarget {
  url: URL;
  /** Host without IPv6 brackets. */
  host: string;
  /** Set when the host is an IP literal, which connects without a DNS lookup. */
  ipLiteral: string | undefined;
}

function parseTarget(raw: string): ParsedTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Not repeated: a secret pasted into the wrong field must not come back in the error.
    throw new OutboundError('invalid_request', 'the URL is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError('invalid_request', `URL scheme ${url.protocol} is not allowed; use http or https`);
  }
  // Credentials in the URL would be sent in the clear in logs and configs.
  if (url.username !== '' || url.password !== '') {
    throw new OutboundError('invalid_request', 'URL must not contain credentials (user:password@)');
  }
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (host === '') throw new OutboundError('invalid_request', 'URL has no host');
  return { url, host, ipLiteral: isIP(host) ? host : undefined };
}

function abortedError(): OutboundError {
  return new OutboundError('aborted', 'the request was stopped');
}

function blockedError(host: string, address: string): OutboundError {
  return new OutboundError('blocked', `${host} ${NOT_PUBLIC}; ${PRIVATE_HINT}`, { detail: { host, address, range: addressRange(address) } });
}

/**
 * Validates a customer-supplied URL when it is configured, so mistakes and
 * SSRF attempts are refused up front. Requests re-check at connect time anyway
 * (see postJson) because DNS answers can change after this check.
 */
export async function assertAllowedUrl(url: string, options: { allowPrivate: boolean; log?: OutboundLog }): Promise<URL> {
  let target: ParsedTarget;
  try {
    target = parseTarget(url);
  } catch (error) {
    if (error instanceof OutboundError) throw new AppError('INVALID_ARGUMENT', error.message);
    throw error;
  }
  let addresses: string[];
  if (target.ipLiteral !== undefined) {
    addresses = [target.ipLiteral];
  } else {
    try {
      addresses = (await dns.lookup(target.host, { all: true })).map((entry) => entry.address);
    } catch (error) {
      options.log?.warn({ host: target.host, ...socketDetail(error) }, 'configured URL host does not resolve');
      throw new AppError('INVALID_ARGUMENT', `host ${target.host} does not resolve`);
    }
    if (addresses.length === 0) throw new AppError('INVALID_ARGUMENT', `host ${target.host} does not resolve`);
  }
  if (!options.allowPrivate) {
    // Any bad address counts: the connection may pick any of them.
    const bad = addresses.find(isBlockedAddress);
    if (bad !== undefined) {
      const error = blockedError(target.host, bad);
      options.log?.warn(error.detail, 'configured URL refused: not a public address');
      throw new AppError('INVALID_ARGUMENT', `URL host ${error.message}`);
    }
  }
  return target.url;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A lookup for http.request that refuses blocked addresses at connect time, so
 * a host that resolved to a public address when configured cannot later
 * rebind to an internal one.
 */
function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) {
      callback(error, []);
      return;
    }
    const bad = addresses.find((entry) => isBlockedAddress(entry.address));
    if (bad !== undefined) {
      callback(blockedError(hostname, bad.address), []);
      return;
    }
    const first = addresses[0];
    if (first === undefined) {
      callback(Object.assign(new Error(`host ${hostname} does not resolve`), { code: 'ENOTFOUND' }), []);
      return;
    }
    // Node asks for all addresses when it races families (autoSelectFamily).
    if (options.all) callback(null, addresses);
    else callback(null, first.address, first.family);
  });
}

export interface PostBytesOptions {
  headers?: Record<string, string>;
  /** Covers connecting, sending and receiving the whole response. */
  timeoutMs: number;
  allowPrivate: boolean;
  /**
   * A response body longer than this fails with `too_large`, unless
   * `truncateResponse` is set: then the rest is dropped and the answer stands.
   */
  maxResponseBytes?: number;
  truncateResponse?: boolean;
  /** Reuse connections (see guardedAgent). Without, each request opens its own connection. */
  agents?: { http: Agent; https: HttpsAgent };
  /** Stops the request (kind `aborted`). */
  signal?: AbortSignal;
}

export interface PostBytesResult {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as UTF-8 text (cut at maxResponseBytes when truncateResponse is set). */
  text: string;
}

export interface PostJsonResult {
  status: number;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: unknown;
  text: string;
}

export type PostJsonOptions = Omit<PostBytesOptions, 'truncateResponse' | 'agents'>;

/**
 * A keep-alive connection pool for customer URLs. A pooled connection was
 * checked by the guarded lookup when it was opened, so reusing it cannot
 * reach an address the guard refuses; new connections are checked again.
 * One pool per allowPrivate setting (a process has one).
 */
export function guardedAgent(options: { maxSockets: number; idleMs: number }): { http: Agent; https: HttpsAgent } {
  // `timeout` closes idle pooled sockets (Node destroys a free socket on its timeout); requests keep their own timer.
  const common = { keepAlive: true, maxSockets: options.maxSockets, maxFreeSockets: options.maxSockets, timeout: options.idleMs, scheduling: 'lifo' as const };
  return { http: new Agent(common), https: new HttpsAgent(common) };
}

/**
 * POSTs JSON to a customer-configured URL. Never follows redirects: a redirect
 * is returned as its 3xx status, since following it would bypass the checks.
 * Rejects with OutboundError only.
 */
export async function postJson(url: string, body: unknown, options: PostJsonOptions): Promise<PostJsonResult> {
  const payload = Buffer.from(JSON.stringify(body) ?? 'null', 'utf8');
  const result = await postBytes(url, payload, { ...options, headers: { ...options.headers, accept: 'application/json' } });
  let parsed: unknown;
  try {
    parsed = result.text === '' ? undefined : JSON.parse(result.text);
  } catch {
    parsed = undefined;
  }
  return { status: result.status, body: parsed, text: result.text };
}

/**
 * POSTs exactly `payload` (sent as application/json) to a customer-configured
 * URL, through the address guard: an IP literal is checked here, a host name
 * at connect time. Never follows redirects. Rejects with OutboundError only.
 */
export async function postBytes(url: string, payload: Buffer, options: PostBytesOptions): Promise<PostBytesResult> {
  const deadline = performance.now() + options.timeoutMs;
  try {
    return await postBytesOnce(url, payload, options);
  } catch (error) {
    // A pooled connection reset as we reused it (the receiver closed it as idle): most likely the request did not get
    // there, so once more on a fresh connection, within the same deadline. Callers must accept a duplicate (webhooks do).
    const left = Math.floor(deadline - performance.now());
    if (error instanceof OutboundError && error.detail.reusedSocket === true && left > 0) return postBytesOnce(url, payload, { ...options, timeoutMs: left });
    throw error;
  }
}

/**
 * The URL's target, or the OutboundError that refuses it: an unusable URL,
 * or an IP literal the guard refuses (IP literals connect without calling
 * lookup, so they are checked here; host names at connect time).
 */
function guardedTarget(url: string, allowPrivate: boolean): ParsedTarget {
  const target = parseTarget(url);
  if (!allowPrivate && target.ipLiteral !== undefined && isBlockedAddress(target.ipLiteral)) throw blockedError(target.host, target.ipLiteral);
  return target;
}

function postBytesOnce(url: string, payload: Buffer, options: PostBytesOptions): Promise<PostBytesResult> {
  return new Promise<PostBytesResult>((resolve, reject) => {
    let target: ParsedTarget;
    try {
      target = guardedTarget(url, options.allowPrivate);
    } catch (error) {
      reject(error);
      return;
    }

    const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const https = target.url.protocol === 'https:';
    const send = https ? httpsRequest : httpRequest;
    const pooled = options.agents === undefined ? undefined : https ? options.agents.https : options.agents.http;

    if (options.signal?.aborted) {
      reject(abortedError());
      return;
    }

    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    let req: ReturnType<typeof httpRequest> | undefined;
    const onAbort = () => fail(abortedError());
    const fail = (error: OutboundError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      req?.destroy();
      reject(error);
    };

    try {
      req = send(target.url, {
        method: 'POST',
        headers: {
          ...options.headers,
          'content-type': 'application/json',
          'content-length': String(payload.length),
        },
        // Without a pool, a fresh connection per request: a pooled socket
        // would skip the connect-time lookup of a later request.
        agent: pooled ?? false,
        ...(options.allowPrivate ? {} : { lookup: guardedLookup as never }),
      });
    } catch (error) {
      // e.g. a header value with a newline in it.
      reject(new OutboundError('invalid_request', `request cannot be sent: ${(error as Error).message}`, { cause: error }));
      return;
    }

    timer = setTimeout(() => {
      fail(new OutboundError('timeout', `no complete answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });

    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof OutboundError) {
        fail(error);
        return;
      }
      // Only before any answer arrived: then the receiver cannot have acted on it.
      const reusedSocket = req?.reusedSocket === true && !answered && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
      fail(new OutboundError('network', 'could not connect, or the connection broke', { cause: error, detail: { ...socketDetail(error), reusedSocket } }));
    });

    let answered = false;
    req.on('response', (res: IncomingMessage) => {
      answered = true;
      const tooLarge = () => new OutboundError('too_large', `response body exceeds ${maxBytes} bytes`);
      const chunks: Buffer[] = [];
      let received = 0;
      const finish = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8').slice(0, options.truncateResponse ? maxBytes : undefined) });
      };
      const declared = Number(res.headers['content-length']);
      if (!options.truncateResponse && Number.isFinite(declared) && declared > maxBytes) {
        res.destroy();
        fail(tooLarge());
        return;
      }
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBytes) {
          if (options.truncateResponse) {
            chunks.push(chunk.subarray(0, chunk.length - (received - maxBytes)));
            // The answer is known; the rest is not worth reading (the socket is not reused).
            finish();
            res.destroy();
            return;
          }
          res.destroy();
          fail(tooLarge());
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', (error) => {
        fail(new OutboundError('network', 'the response broke off', { cause: error, detail: socketDetail(error) }));
      });
      res.on('close', () => {
        if (!res.complete) fail(new OutboundError('network', 'response was cut off'));
      });
      res.on('end', finish);
    });

    req.end(payload);
  });
}

export interface GetResourceOptions {
  allowPrivate: boolean;
  /** Covers the whole fetch, every redirect hop included. */
  timeoutMs: number;
  /** Of the decoded body (after decompression, so a small gzip bomb cannot get past it). */
  maxBytes: number;
  /** Past maxBytes: cut the body and keep the answer (`truncated`); without, fail with `too_large`. */
  truncate?: boolean;
  signal?: AbortSignal;
  /** Sent to the first URL, and to every redirect hop of the same origin (see getResource). */
  headers?: Record<string, string>;
  /** Default 5. */
  maxRedirects?: number;
  /**
   * Default true. False: a redirect comes back as its 3xx answer, Location
   * in `headers` and no body read, for a caller that follows it itself
   * (the browser's main document: the page must know where it ended up).
   */
  followRedirects?: boolean;
  /** HEAD reads no body (a link check). Default GET. */
  method?: 'GET' | 'HEAD';
}

export interface GetResourceResult {
  status: number;
  headers: IncomingHttpHeaders;
  /** The URL that answered, after redirects. */
  finalUrl: string;
  /** The body decoded as UTF-8 whatever charset the answer names: pages and APIs we read are UTF-8 nearly always, and a wrong guess costs only some characters of text. */
  text: string;
  /** The body's bytes (an image's header), decompressed. */
  body: Buffer;
  /** The media type alone, lowercased (`text/html`), or '' without a Content-Type. */
  contentType: string;
  truncated: boolean;
  /** Every URL redirected to, in order (the last is finalUrl). */
  redirects: string[];
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const DEFAULT_MAX_REDIRECTS = 5;
// Only what we can decode; the answer's Content-Encoding picks the decoder.
const ACCEPT_ENCODING = 'gzip, deflate, br';
// Headers that carry nothing of the caller's: kept on a redirect to another origin.
const CROSS_ORIGIN_HEADERS = new Set(['user-agent', 'accept', 'accept-language']);

/**
 * GETs a URL through the address guard (an IP literal checked before
 * connecting, a host name at connect time). Redirects are followed by hand,
 * so that each hop goes through the guard again and a public page cannot
 * redirect us to an internal address; with followRedirects false the first
 * one comes back instead. Rejects with OutboundError only.
 */
export async function getResource(url: string, options: GetResourceOptions): Promise<GetResourceResult> {
  const deadline = performance.now() + options.timeoutMs;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const redirects: string[] = [];
  let current = url;
  let headers = options.headers ?? {};
  for (;;) {
    const left = Math.floor(deadline - performance.now());
    if (left <= 0) throw new OutboundError('timeout', `no complete answer within ${options.timeoutMs} ms`);
    const hop = await getOnce(current, headers, { ...options, timeoutMs: left }, options.timeoutMs);
    if (hop.location === undefined || options.followRedirects === false) return { ...hop.result, finalUrl: current, redirects };
    if (redirects.length >= maxRedirects) {
      throw new OutboundError('network', `more than ${maxRedirects} redirects`, { detail: { redirects } });
    }
    let next: URL;
    try {
      next = new URL(hop.location, current);
    } catch {
      throw new OutboundError('invalid_request', 'a redirect points to an invalid URL');
    }
    next.hash = '';
    // Headers the caller configured (an API key) go only where the caller sent them: not to another origin a redirect names.
    if (next.origin !== new URL(current).origin) {
      headers = Object.fromEntries(Object.entries(headers).filter(([name]) => CROSS_ORIGIN_HEADERS.has(name.toLowerCase())));
    }
    current = next.href;
    redirects.push(current);
  }
}

interface Hop {
  /** Set for a redirect to follow; its body is not read. */
  location?: string;
  result: Omit<GetResourceResult, 'finalUrl' | 'redirects'>;
}

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

function decoderFor(encoding: string): Transform | undefined | 'unsupported' {
  switch (encoding) {
    case '':
    case 'identity':
      return undefined;
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return 'unsupported';
  }
}

function getOnce(url: string, headers: Record<string, string>, options: GetResourceOptions, totalMs: number): Promise<Hop> {
  return new Promise<Hop>((resolve, reject) => {
    let target: ParsedTarget;
    try {
      target = guardedTarget(url, options.allowPrivate);
    } catch (error) {
      reject(error);
      return;
    }
    if (options.signal?.aborted) {
      reject(abortedError());
      return;
    }

    const method = options.method ?? 'GET';
    const send = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    let req: ReturnType<typeof httpRequest> | undefined;
    let res: IncomingMessage | undefined;
    let decoder: Transform | undefined;
    const onAbort = () => fail(abortedError());
    const done = () => {
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    const stop = () => {
      decoder?.destroy();
      res?.destroy();
      req?.destroy();
    };
    const fail = (error: OutboundError) => {
      if (settled) return;
      done();
      stop();
      reject(error);
    };

    try {
      req = send(target.url, {
        method,
        headers: { ...headers, 'accept-encoding': ACCEPT_ENCODING },
        // A fresh connection per request, so every hop goes through the connect-time lookup.
        agent: false,
        ...(options.allowPrivate ? {} : { lookup: guardedLookup as never }),
      });
    } catch (error) {
      // e.g. a header value with a newline in it (Node names the header, never its value).
      reject(new OutboundError('invalid_request', `request cannot be sent: ${(error as Error).message}`, { cause: error }));
      return;
    }

    timer = setTimeout(() => fail(new OutboundError('timeout', `no complete answer within ${totalMs} ms`)), options.timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });

    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof OutboundError) fail(error);
      else fail(new OutboundError('network', 'could not connect, or the connection broke', { cause: error, detail: socketDetail(error) }));
    });

    req.on('response', (response: IncomingMessage) => {
      res = response;
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      const base = { status, headers: response.headers, contentType: mediaType(response.headers['content-type']) };
      if (REDIRECT_STATUSES.has(status) && typeof location === 'string' && location !== '') {
        done();
        stop();
        resolve({ location, result: { ...base, text: '', body: Buffer.alloc(0), truncated: false } });
        return;
      }

      const encoding = (response.headers['content-encoding'] ?? '').trim().toLowerCase();
      const chosen = method === 'HEAD' ? undefined : decoderFor(encoding);
      if (chosen === 'unsupported') {
        fail(new OutboundError('network', `the answer's Content-Encoding ${JSON.stringify(encoding.slice(0, 40))} is not one we decode`));
        return;
      }
      decoder = chosen;
      const maxBytes = options.maxBytes;
      const declared = Number(response.headers['content-length']);
      if (!options.truncate && decoder === undefined && Number.isFinite(declared) && declared > maxBytes) {
        fail(new OutboundError('too_large', `response body exceeds ${maxBytes} bytes`));
        return;
      }

      const chunks: Buffer[] = [];
      let received = 0;
      const finish = (truncated: boolean) => {
        if (settled) return;
        done();
        const body = Buffer.concat(chunks);
        resolve({ result: { ...base, text: body.toString('utf8'), body, truncated } });
        // The answer is known; the rest is not worth reading (the connection is not reused).
        if (truncated) stop();
      };
      const stream: Readable = decoder ?? response;
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        received += chunk.length;
        if (received <= maxBytes) {
          chunks.push(chunk);
          return;
        }
        if (!options.truncate) {
          fail(new OutboundError('too_large', `response body exceeds ${maxBytes} bytes`));
          return;
        }
        chunks.push(chunk.subarray(0, chunk.length - (received - maxBytes)));
        finish(true);
      });
      stream.on('end', () => finish(false));
      if (decoder !== undefined) {
        decoder.on('error', (error) => fail(new OutboundError('network', 'the response body could not be decompressed', { cause: error })));
        response.pipe(decoder);
      }
      response.on('error', (error) => fail(new OutboundError('network', 'the response broke off', { cause: error, detail: socketDetail(error) })));
      response.on('close', () => {
        if (!response.complete) fail(new OutboundError('network', 'response was cut off'));
      });
    });

    req.end();
  });
}

export interface GuardedFetchOptions {
  allowPrivate: boolean;
  /** A response body past this breaks off with `too_large` (a stream counts as one body). */
  maxResponseBytes: number;
}

/** Statuses whose Response may not have a body. */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/**
 * A `fetch` for libraries that take one (the MCP SDK's transports), through
 * the address guard: an IP literal is checked before connecting, a host
 * name at connect time (guardedLookup), on a fresh connection per request.
 * Redirects are never followed here: a 3xx comes back as it is, and a
 * library that follows it calls this fetch again, so each hop is checked.
 * The body streams (Server-Sent Events stay open); the request's `signal`
 * stops it at any point. Rejects with OutboundError only.
 */
export function guardedFetch(options: GuardedFetchOptions): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return (url, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      let target: ParsedTarget;
      try {
        target = guardedTarget(String(url), options.allowPrivate);
      } catch (error) {
        reject(error);
        return;
      }
      const signal = init.signal ?? undefined;
      if (signal?.aborted) {
        reject(abortedError());
        return;
      }
      let payload: Buffer | undefined;
      const body: unknown = init.body;
      if (typeof body === 'string') payload = Buffer.from(body, 'utf8');
      else if (body instanceof Uint8Array) payload = Buffer.from(body);
      else if (body instanceof ArrayBuffer) payload = Buffer.from(new Uint8Array(body));
      else if (body !== undefined && body !== null) {
        reject(new OutboundError('invalid_request', 'only string and byte bodies can be sent'));
        return;
      }
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, key) => {
        headers[key] = value;
      });
      if (payload !== undefined) headers['content-length'] = String(payload.length);

      let req: ReturnType<typeof httpRequest>;
      let res: IncomingMessage | undefined;
      let stream: ReadableStreamDefaultController<Uint8Array> | undefined;
      const fail = (error: OutboundError) => {
        signal?.removeEventListener('abort', onAbort);
        req.destroy();
        res?.destroy();
        if (stream !== undefined) {
          try {
            stream.error(error);
          } catch {
            // Already closed.
          }
        }
        reject(error);
      };
      const onAbort = () => fail(abortedError());
      try {
        req = (target.url.protocol === 'https:' ? httpsRequest : httpRequest)(target.url, {
          method: init.method ?? 'GET',
          headers,
          agent: false,
          ...(options.allowPrivate ? {} : { lookup: guardedLookup as never }),
        });
      } catch (error) {
        reject(new OutboundError('invalid_request', `request cannot be sent: ${(error as Error).message}`, { cause: error }));
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', (error: NodeJS.ErrnoException) => {
        fail(error instanceof OutboundError ? error : new OutboundError('network', 'could not connect, or the connection broke', { cause: error, detail: socketDetail(error) }));
      });
      req.on('response', (answer: IncomingMessage) => {
        res = answer;
        const responseHeaders = new Headers();
        for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) responseHeaders.append(answer.rawHeaders[i]!, answer.rawHeaders[i + 1]!);
        const status = answer.statusCode ?? 502;
        if (NULL_BODY_STATUSES.has(status)) {
          answer.resume();
          signal?.removeEventListener('abort', onAbort);
          resolve(new Response(null, { status, statusText: answer.statusMessage ?? '', headers: responseHeaders }));
          return;
        }
        let received = 0;
        const readable = new ReadableStream<Uint8Array>({
          start(controller) {
            stream = controller;
            answer.on('data', (chunk: Buffer) => {
              received += chunk.length;
              if (received > options.maxResponseBytes) {
                fail(new OutboundError('too_large', `response body exceeds ${options.maxResponseBytes} bytes`));
                return;
              }
              controller.enqueue(new Uint8Array(chunk));
            });
            answer.on('end', () => {
              signal?.removeEventListener('abort', onAbort);
              try {
                controller.close();
              } catch {
                // Already errored.
              }
            });
            answer.on('error', (error) => fail(new OutboundError('network', 'the response broke off', { cause: error, detail: socketDetail(error) })));
          },
          cancel() {
            signal?.removeEventListener('abort', onAbort);
            answer.destroy();
          },
        });
        resolve(new Response(readable, { status: status < 200 || status > 599 ? 502 : status, statusText: answer.statusMessage ?? '', headers: responseHeaders }));
      });
      req.end(payload);
    });
}
