// What the bench's yardstick servers (bare-server.mjs, floor-server.mjs) share
// as child processes of the harness: listen, say where on stdout, and stop
// when stdin closes (so none outlives the bench process) or on a signal.

/**
 * Listens with `app` on PORT/HOST (default: any port on 127.0.0.1), prints
 * `listening on http://ADDRESS:PORT`, and stops on stdin's end, SIGTERM or
 * SIGINT, after `onClose` (e.g. closing a database).
 * @param {import('express').Express} app
 * @param {() => unknown} [onClose]
 */
export function serveUntilStdinEnds(app, onClose = () => undefined) {
  const server = app.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
    const { address, port } = /** @type {import('node:net').AddressInfo} */ (server.address());
    process.stdout.write(`listening on http://${address}:${port}\n`);
  });
  const stop = () => {
    server.close(() => void Promise.resolve()
      .then(onClose)
      .finally(() => process.exit(0)));
    server.closeAllConnections();
    setTimeout(() => process.exit(0), 2_000).unref();
  };
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  process.stdin.resume();
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
