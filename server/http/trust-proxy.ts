import { isIP } from 'node:net';
import { ConfigError } from '../lib/config-error.js';

/**
 * TRUST_PROXY: which peers may tell us the client's address in
 * X-Forwarded-For, with Express's `trust proxy` semantics (the value is
 * handed to it as is):
 *
 * - unset, empty, `false` or `0`: no one. The client is the TCP peer and the
 *   header is ignored, so a client cannot pick the address its rate limits
 *   count against.
 * - a whole number N: the N proxies nearest the server (the client is the
 *   N-th address from the right of X-Forwarded-For).
 * - a comma-separated list of addresses, CIDR ranges and Express's names
 *   `loopback`, `linklocal`, `uniquelocal`: those peers, however many.
 *
 * `true` (trust every peer) is refused: the left-most address of the header,
 * which any client writes, would become the client's address.
 */
export type TrustProxy = false | number | string[];

const NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

export function trustProxyFrom(raw: string | undefined): TrustProxy {
  const value = raw?.trim() ?? '';
  if (value === '' || value === 'false' || value === '0') return false;
  if (value === 'true') {
    throw new ConfigError('TRUST_PROXY=true would trust every peer, so any client could choose its own address; give the number of proxies in front of the server (e.g. 1) or their addresses (e.g. 10.0.0.0/8,loopback)');
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > 100) throw new ConfigError(`TRUST_PROXY must be a number of proxies from 0 to 100 or a list of addresses (got "${value}")`);
    return hops;
  }
  const entries = value.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !NAMES.has(entry) && !isAddressOrRange(entry));
  if (bad.length > 0) {
    throw new ConfigError(
      `TRUST_PROXY must be a number of proxies or a comma-separated list of IP addresses, CIDR ranges, loopback, linklocal or uniquelocal (not ${bad.map((b) => JSON.stringify(b)).join(', ')})`,
    );
  }
  return entries;
}

function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (/^\d{1,3}$/.test(prefix)) return Number(prefix) <= (family === 4 ? 32 : 128);
  // proxy-addr also takes an IPv4 netmask after the slash (10.0.0.0/255.0.0.0).
  return family === 4 && isIP(prefix) === 4;
}
