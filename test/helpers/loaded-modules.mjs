// Preloaded into a server process (`--import`, through NODE_OPTIONS) by
// test/server/start-modules.test.ts: appends the URL of every module the
// process loads to the file LOADED_MODULES_FILE names, one a line. The loader
// hooks (loaded-modules-hooks.mjs) see every ES module and every CommonJS
// module an import reaches, static or dynamic, at the time it loads; what a
// CommonJS module requires in turn goes past them.
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const file = process.env.LOADED_MODULES_FILE;
if (!file) throw new Error('loaded-modules.mjs needs LOADED_MODULES_FILE');
const { port1, port2 } = new MessageChannel();
port1.on('message', (url) => appendFileSync(file, `${url}\n`));
// The hooks' port must not keep a stopping server alive.
port1.unref();
register('./loaded-modules-hooks.mjs', import.meta.url, { data: { port: port2 }, transferList: [port2] });
