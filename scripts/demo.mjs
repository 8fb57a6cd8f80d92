// `npm run demo [-- --owner-email E --base-url URL]`: the CLI's `demo` command
// (after build-if-needed.mjs), printed for a person instead of as JSON. The
// JSON stays available as `npm run --silent cli -- demo` for scripts.
import { runCli } from '../dist/server/cli.js';
import { demoText } from '../dist/server/demo/demo-text.js';

const result = await runCli(['demo', ...process.argv.slice(2)]);
process.stderr.write(result.stderr);
// Help (`npm run demo -- --help`) is text, not the demo's JSON.
const json = result.code === 0 && result.stdout.trimStart().startsWith('{');
if (json) process.stdout.write(demoText(JSON.parse(result.stdout)));
else process.stdout.write(result.stdout);
process.exitCode = result.code;
