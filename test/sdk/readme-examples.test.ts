// The README's examples run: every `ts` block of its "Examples by group"
// section (then those of "Paged lists" and "Errors", which use the same
// organization), in order, against the real server, with `client` an
// application's client. test/sdk/pack.test.ts type-checks every block against
// the packed package; this proves the calls are also accepted by the server.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { closeReceivers, startReceiver } from '../helpers/receiver.js';
import { startWebhookServer, type WebhookTestServer } from '../helpers/webhook-server.js';

const sdkEntry = fileURLToPath(new URL('../../sdk/index.ts', import.meta.url));
const readme = readFileSync(new URL('../../sdk/README.md', import.meta.url), 'utf8');

/** The `ts` blocks of one `## ` section of the README. */
function tsBlocksOf(markdown: string, section: string): string[] {
  const start = markdown.indexOf(`\n## ${section}\n`);
  if (start < 0) throw new Error(`no section ${section}`);
  const end = markdown.indexOf('\n## ', start + 1);
  return [...markdown.slice(start, end < 0 ? undefined : end).matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

let server: WebhookTestServer;
let dir: string;
beforeAll(async () => {
  // Private URLs: the webhook example's endpoint is pointed at a local receiver (no DNS here).
  server = await startWebhookServer();
  dir = await mkdtemp(join(tmpdir(), 'collab-readme-'));
});
afterAll(async () => {
  await server?.close();
  await closeReceivers();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('runs the examples of every group against the server', async () => {
  const groups = tsBlocksOf(readme, 'Examples by group');
  const blocks = [...groups, ...tsBlocksOf(readme, 'Paged lists'), ...tsBlocksOf(readme, 'Errors')];
  // One block per group of the contract, each named by its heading.
  const headings = [...readme.matchAll(/^### (\w+)$/gm)].map((m) => m[1]);
  const { contract } = await import('../../contract/index.js');
  expect(headings.sort()).toEqual(Object.keys(contract).sort());
  expect(groups).toHaveLength(headings.length);

  const ws = await server.workspace();
  const receiver = await startReceiver((_req, res) => res.writeHead(204).end());
  (globalThis as { client?: unknown }).client = server.client(ws);
  // The examples print what they read; not this test's output.
  const quiet = [vi.spyOn(console, 'log').mockImplementation(() => {}), vi.spyOn(console, 'warn').mockImplementation(() => {})];
  try {
    for (const [index, block] of blocks.entries()) {
      const file = join(dir, `block-${index + 1}.ts`);
      const source = block.replaceAll("'@collab-backend/sdk'", JSON.stringify(sdkEntry)).replaceAll('https://hooks.example.com/collab', receiver.url);
      await writeFile(file, `${source}\nexport {};\n`);
      try {
        await import(pathToFileURL(file).href);
      } catch (error) {
        throw new Error(`README example ${index + 1} failed:\n${block}\n${String(error)}`, { cause: error });
      }
    }
  } finally {
    delete (globalThis as { client?: unknown }).client;
    for (const spy of quiet) spy.mockRestore();
  }
}, 60_000);
