import { lookup as dnsLookup, promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';
import { AppError } from './app-error.js';

/**
 * Outbound HTTP to URLs our customers configure (permission provider,
 * webhooks). A customer-controlled URL must not become a way to reach our own
 * network (SSRF): loopback, private ranges, cloud metadata, etc.
 */

/**
 * timeout: no complete answer in time; network: could not connect or the
 * connection broke; blocked: the host is or resolves to a refused address;
 * too_large: the response exceeded the cap; invalid_request: the URL or a
 * header is unusable (a configuration mistake, not an outage).
 */
export type OutboundErrorKind = 'timeout' | 'network' | 'blocked' | 'too_large' | 'invalid_request';

export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OutboundError';
  }
}

const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

const PRIVATE_HINT = 'set WEBHOOK_ALLOW_PRIVATE_URLS=true to allow private addresses (e.g. in development)';

// Net's BlockList also matches IPv4-mapped IPv6 (::ffff:127.0.0.1) against the
// IPv4 rules, so the mapped forms need no rules of their own.
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"; 0.0.0.0 reaches the local host on Linux
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, includes cloud metadata 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking, sometimes used internally
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, includes broadcast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['::', 96], // deprecated IPv4-compatible addresses (::a.b.c.d)
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // deprecated site-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** Whether an IP address is one customers must not make us reach. */
export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/%.*$/, ''); // zone id (fe80::1%eth0)
  const family = isIP(bare);
  if (family === 4) return blocked.check(bare, 'ipv4');
  if (family === 6) return blocked.check(bare, 'ipv6');
  // Not an address we understand: refuse rather than guess.
  return true;
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
    throw new OutboundError('invalid_request', `"${raw}" is not a valid URL`);
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

function blockedMessage(host: string, address: string): string {
  const shown = host === address ? address : `${host} (${address})`;
  return `${shown} is a private, loopback, link-local or reserved address; ${PRIVATE_HINT}`;
}

/**
 * Validates a customer-supplied URL when it is configured, so mistakes and
 * SSRF attempts are refused up front. Requests re-check at connect time anyway
 * (see postJson) because DNS answers can change after this check.
 */
export async function assertAllowedUrl(url: string, options: { allowPrivate: boolean }): Promise<URL> {
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
    } catch {
      throw new AppError('INVALID_ARGUMENT', `host ${target.host} does not resolve`);
    }
    if (addresses.length === 0) throw new AppError('INVALID_ARGUMENT', `host ${target.host} does not resolve`);
  }
  if (!options.allowPrivate) {
    // Any bad address counts: the connection may pick any of them.
    const bad = addresses.find(isBlockedAddress);
    if (bad !== undefined) throw new AppError('INVALID_ARGUMENT', `URL host ${blockedMessage(target.host, bad)}`);
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
      callback(new OutboundError('blocked', blockedMessage(hostname, bad.address)), []);
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

export interface PostJsonOptions {
  headers?: Record<string, string>;
  /** Covers connecting, sending and receiving the whole response. */
  timeoutMs: number;
  allowPrivate: boolean;
  maxResponseBytes?: number;
}

export interface PostJsonResult {
  status: number;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: unknown;
  text: string;
}

/**
 * POSTs JSON to a customer-configured URL. Never follows redirects: a redirect
 * is returned as its 3xx status, since following it would bypass the checks.
 * Rejects with OutboundError only.
 */
export function postJson(url: string, body: unknown, options: PostJsonOptions): Promise<PostJsonResult> {
  return new Promise<PostJsonResult>((resolve, reject) => {
    let target: ParsedTarget;
    try {
      target = parseTarget(url);
    } catch (error) {
      reject(error);
      return;
    }
    // IP literals connect without calling lookup, so check them here.
    if (!options.allowPrivate && target.ipLiteral !== undefined && isBlockedAddress(target.ipLiteral)) {
      reject(new OutboundError('blocked', blockedMessage(target.host, target.ipLiteral)));
      return;
    }

    const payload = Buffer.from(JSON.stringify(body) ?? 'null', 'utf8');
    const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const send = target.url.protocol === 'https:' ? httpsRequest : httpRequest;

    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    let req: ReturnType<typeof httpRequest> | undefined;
    const fail = (error: OutboundError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
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
          accept: 'application/json',
        },
        // A fresh connection per request: a pooled socket would skip the
        // connect-time lookup and could outlive a change of allowPrivate.
        agent: false,
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

    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof OutboundError) {
        fail(error);
        return;
      }
      const code = error.code ? ` (${error.code})` : '';
      fail(new OutboundError('network', `request failed${code}: ${error.message}`, { cause: error }));
    });

    req.on('response', (res: IncomingMessage) => {
      const tooLarge = () => new OutboundError('too_large', `response body exceeds ${maxBytes} bytes`);
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        res.destroy();
        fail(tooLarge());
        return;
      }
      const chunks: Buffer[] = [];
      let received = 0;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBytes) {
          res.destroy();
          fail(tooLarge());
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', (error) => {
        fail(new OutboundError('network', `response failed: ${error.message}`, { cause: error }));
      });
      res.on('close', () => {
        if (!res.complete) fail(new OutboundError('network', 'response was cut off'));
      });
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = text === '' ? undefined : JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body: parsed, text });
      });
    });

    req.end(payload);
  });
}
