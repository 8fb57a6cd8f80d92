// `npm start` and the CLI run compiled JavaScript; this rebuilds dist/ only
// when a source file is newer than the last build, so a warm start costs a
// directory walk, not a type-check. Output goes to stderr: the CLI's stdout
// must stay pure JSON.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(import.meta.url), '..', '..');
const stamp = join(root, 'dist', '.tsbuildinfo');

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(path));
    else if (entry.name.endsWith('.ts')) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

const sources = Math.max(newest(join(root, 'contract')), newest(join(root, 'server')), statSync(join(root, 'tsconfig.json')).mtimeMs);
if (!existsSync(stamp) || statSync(stamp).mtimeMs < sources) {
  process.stderr.write('building dist/ …\n');
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], {
    stdio: ['ignore', 2, 2],
  });
  // tsc leaves its build info untouched when no output changed; mark the build fresh anyway.
  const now = new Date();
  utimesSync(stamp, now, now);
}
