// A webhook receiver to try advanced webhooks on one machine (the README's
// quick start runs it). It verifies each delivery's Standard Webhooks
// signature over the exact bytes received, as a real receiver must, and
// prints each verified payload as one JSON line on stdout.
//
//   COLLAB_WEBHOOK_SECRET=whsec_… node examples/webhook-receiver.mjs http://127.0.0.1:8099/webhooks [--count N] [--timeout S]
//
// With --count it exits 0 after N verified deliveries, or 1 when they have not
// all come within --timeout seconds (default 60), so a script can wait on it.
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { count: { type: 'string' }, timeout: { type: 'string', default: '60' } },
});
const secret = process.env.COLLAB_WEBHOOK_SECRET;
if (positionals.length !== 1 || !secret) {
  console.error('usage: COLLAB_WEBHOOK_SECRET=whsec_… node examples/webhook-receiver.mjs <url to listen on> [--count N] [--timeout S]');
  process.exit(2);
}
const url = new URL(positionals[0]);
const webhook = new Webhook(secret);
const count = values.count === undefined ? Infinity : Number(values.count);
const handled = new Set(); // webhook-ids: a message can arrive more than once (at-least-once delivery)

const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== url.pathname) return res.writeHead(404).end();
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    let payload;
    try {
      // The raw bytes, before any JSON parsing; verify() also refuses timestamps more than 5 minutes away.
      payload = webhook.verify(Buffer.concat(chunks), req.headers);
    } catch (error) {
      console.error(`refused a delivery: ${error.message}`);
      return res.writeHead(400).end();
    }
    const id = req.headers['webhook-id'];
    if (!handled.has(id)) {
      handled.add(id);
      const { metadata, ...shown } = payload; // metadata.apiKey is the application's key: not for a terminal
      console.log(JSON.stringify({ verified: true, ...shown, organizationId: metadata.organizationId, documentId: metadata.documentId }));
    }
    // Answer quickly (a slow answer is a failed try). Once done, close instead of
    // process.exit(), which could cut off stdout where pipes are asynchronous (macOS).
    res.writeHead(204).end(() => {
      if (handled.size < count) return;
      server.close();
      server.closeAllConnections(); // the sender keeps connections alive
    });
  });
});

server.on('error', (error) => {
  console.error(`webhook receiver: ${error.message}`);
  process.exit(1);
});
server.listen(Number(url.port || 80), url.hostname, () => console.log(`listening on ${url.href}`));

if (count !== Infinity) {
  setTimeout(() => {
    console.error(`webhook receiver: ${handled.size} of ${count} deliveries within ${values.timeout} s`);
    process.exit(1);
  }, Number(values.timeout) * 1000).unref();
}
