// `npm start` and the CLI run compiled JavaScript; this rebuilds dist/ only
// when a source file is newer than the last build, so a warm start costs a
// directory walk, not a type-check. Output goes to stderr: the CLI's stdout
// must stay pure JSON.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(import.meta.url), '..', '..');
const stamp = join(root, 'dist', '.tsbuildinfo');
const lock = join(root, 'dist', '.build-lock');

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(path));
    else if (entry.name.endsWith('.ts')) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

function fresh() {
  const sources = Math.max(newest(join(root, 'contract')), newest(join(root, 'server')), statSync(join(root, 'tsconfig.json')).mtimeMs);
  return existsSync(stamp) && statSync(stamp).mtimeMs >= sources;
}

/**
 * Whether the lock still stands for a running build: a build stopped by
 * Ctrl-C leaves its lock behind, and no build takes ten minutes (a reused
 * process ID must not keep everyone waiting).
 */
function lockHeld() {
  try {
    if (Date.now() - statSync(lock).mtimeMs > 10 * 60_000) return false;
    process.kill(Number(readFileSync(lock, 'utf8')), 0);
    return true;
  } catch (error) {
    // EPERM: alive, under another user. ENOENT: the lock is gone already.
    return error.code === 'EPERM';
  }
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

if (!fresh()) {
  // One build at a time: `npm start` and the CLI (or two test files) may
  // start together on a fresh clone, and two compilers writing dist/ at once
  // could hand either of them a half-written file.
  mkdirSync(join(root, 'dist'), { recursive: true });
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    if (!lockHeld()) rmSync(lock, { force: true });
    else sleep(200);
  }
  try {
    // Another process may have built while this one waited.
    if (!fresh()) {
      process.stderr.write('building dist/ …\n');
      execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], {
        stdio: ['ignore', 2, 2],
      });
      // tsc leaves its build info untouched when no output changed; mark the build fresh anyway.
      const now = new Date();
      utimesSync(stamp, now, now);
    }
  } finally {
    rmSync(lock, { force: true });
  }
}
