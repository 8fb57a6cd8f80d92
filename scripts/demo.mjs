// `npm run demo [-- --owner-email E --base-url URL]`: the CLI's `demo` command
// (after build-if-needed.mjs), printed for a person instead of as JSON. The
// JSON stays available as `npm run --silent cli -- demo` for scripts.
import { runCli } from '../dist/server/cli.js';
import { demoText } from '../dist/server/demo/demo-text.js';

const result = await runCli(['demo', ...process.argv.slice(2)]);
process.stderr.write(result.stderr);
if (result.code === 0) process.stdout.write(demoText(JSON.parse(result.stdout)));
process.exitCode = result.code;
