import { request } from 'node:http';

/**
 * POSTs `body` to `path` of `baseUrl` from a loopback address of its own
 * (Linux routes all of 127/8 to the listeners on 127.0.0.1): a distinct
 * client to whatever counts by address. Resolves the status code.
 */
export function postFrom(baseUrl: string, path: string, localAddress: string, headers: Record<string, string>, body = '{"data":{}}'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, baseUrl), { method: 'POST', localAddress, headers: { 'content-type': 'application/json', ...headers } });
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.end(body);
  });
}
