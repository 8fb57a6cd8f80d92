import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';

/**
 * Keeps the fuzzed server off the internet. Fuzzed bodies configure webhook
 * endpoints, permission providers, MCP servers and email settings with
 * arbitrary URLs, and the server calls some of them while answering. Here:
 * - every HTTP request (fetch or node:http) to a host other than 127.0.0.1
 *   gets a network error from msw, and is counted;
 * - every DNS look-up of a name other than `localhost` fails with ENOTFOUND
 *   (the SSRF guard resolves hosts before it connects), and is counted.
 * So the server answers with its own error, as it would for an unreachable
 * host, and no packet leaves the machine.
 */
export interface NetworkStub {
  readonly stubbedRequests: number;
  readonly stubbedLookups: number;
  close(): void;
}

export const PROVIDER_ENV = {
  OPENAI_BASE_URL: 'http://openai.fuzz.test/v1',
  ANTHROPIC_BASE_URL: 'http://anthropic.fuzz.test',
  GEMINI_BASE_URL: 'http://gemini.fuzz.test/v1beta/openai/',
  EMAIL_PROVIDER_BASE_URL: 'http://email.fuzz.test',
};

const LOCAL = new Set(['localhost', '127.0.0.1', '::1']);

export function stubNetwork(): NetworkStub {
  const counts = { stubbedRequests: 0, stubbedLookups: 0 };
  const msw = setupServer(
    http.all(
      ({ request }) => !LOCAL.has(new URL(request.url).hostname),
      () => {
        counts.stubbedRequests++;
        return HttpResponse.error();
      },
    ),
  );
  msw.listen({ onUnhandledRequest: 'bypass' });

  const realLookup = dns.lookup;
  const realPromisesLookup = dns.promises.lookup;
  const notFound = (host: string) => Object.assign(new Error(`getaddrinfo ENOTFOUND ${host} (stubbed by the fuzz suite)`), { code: 'ENOTFOUND', hostname: host });
  const fakeLookup = ((host: string, ...rest: unknown[]) => {
    if (LOCAL.has(host)) return (realLookup as (...args: unknown[]) => void)(host, ...rest);
    counts.stubbedLookups++;
    const callback = rest.at(-1) as (err: Error) => void;
    process.nextTick(() => callback(notFound(host)));
  }) as typeof dns.lookup;
  const fakePromisesLookup = (async (host: string, options?: unknown) => {
    if (LOCAL.has(host)) return realPromisesLookup(host, options as never);
    counts.stubbedLookups++;
    throw notFound(host);
  }) as typeof dns.promises.lookup;
  dns.lookup = fakeLookup;
  dns.promises.lookup = fakePromisesLookup;
  // ESM importers of node:dns (`import { lookup } from 'node:dns'`) see the replacement too.
  syncBuiltinESMExports();

  return {
    get stubbedRequests() {
      return counts.stubbedRequests;
    },
    get stubbedLookups() {
      return counts.stubbedLookups;
    },
    close() {
      msw.close();
      dns.lookup = realLookup;
      dns.promises.lookup = realPromisesLookup;
      syncBuiltinESMExports();
    },
  };
}
