// `npm run package -- DIR`: the production package (docs/operations.md,
// "Production install"). Built once here, where the dev dependencies are
// (TypeScript, the Prisma CLI that generated the clients); the server
// installs only the runtime dependencies into it (`npm ci --omit=dev`) and
// runs the compiled JavaScript, so nothing there builds or generates.
//
// DIR gets what the server reads at run time and nothing else:
//   dist/        the compiled contract and server, the generated Prisma clients included
//   prisma/<provider>/migrations/   applied at start (server/db/migrate.ts)
//   openapi/openapi.json            served at /openapi.json and /docs
//   package.json the runtime dependencies; `start`, `cli` and `db:migrate`
//                run dist/ directly (no prestart build, no postinstall)
//   package-lock.json  the repository's lock without the dev dependencies
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const target = resolve(process.argv[2] ?? join(root, 'release', `${manifest.name}-${manifest.version}`));

function fail(message) {
  process.stderr.write(`package: ${message}\n`);
  process.exit(1);
}

if (existsSync(target) && readdirSync(target).length > 0) fail(`${target} exists and is not empty; remove it or name another directory`);
if (!existsSync(join(root, 'node_modules', 'typescript'))) fail('the dev dependencies are missing: run `npm ci` here first (the package is built where they are)');

// Build once (a no-op when dist/ is current), with the script `npm start` uses in a clone.
execFileSync(process.execPath, [join(root, 'scripts', 'build-if-needed.mjs')], { stdio: ['ignore', 2, 2] });

/**
 * The compiled modules of the sources that exist now: dist/ is built
 * incrementally, so the output of a source deleted since an earlier build
 * may still be there and must not ship. Source maps are left out: they point
 * at .ts files the package does not have.
 */
function copyCompiled(from) {
  for (const entry of readdirSync(join(root, 'dist', from), { withFileTypes: true })) {
    const path = join(from, entry.name);
    if (entry.isDirectory()) copyCompiled(path);
    else if (entry.name.endsWith('.js') && existsSync(join(root, path.replace(/\.js$/, '.ts')))) {
      mkdirSync(join(target, 'dist', from), { recursive: true });
      cpSync(join(root, 'dist', path), join(target, 'dist', path));
    }
  }
}
copyCompiled('contract');
copyCompiled('server');

for (const provider of ['sqlite', 'postgresql']) {
  cpSync(join(root, 'prisma', provider, 'migrations'), join(target, 'prisma', provider, 'migrations'), { recursive: true });
}
mkdirSync(join(target, 'openapi'));
cpSync(join(root, 'openapi', 'openapi.json'), join(target, 'openapi', 'openapi.json'));

const { name, version, private: isPrivate, description, license, type, engines, dependencies } = manifest;
const runtime = {
  name,
  version,
  private: isPrivate,
  description,
  license,
  type,
  engines,
  // The same commands as in a clone (the operator interface), without the
  // build: `exec` so that a supervisor's SIGTERM to npm reaches the server.
  scripts: {
    start: 'exec node dist/server/main.js',
    cli: 'node dist/server/cli.js',
    'db:migrate': 'node dist/server/cli.js db migrate',
  },
  dependencies,
  // npm 12 runs a dependency's install script only when this allows it
  // (npm 11 warns): better-sqlite3 compiles its native module there when no
  // prebuilt binary can be downloaded; core-js only prints a banner.
  allowScripts: { 'better-sqlite3': true, 'core-js': false },
};
writeFileSync(join(target, 'package.json'), `${JSON.stringify(runtime, null, 2)}\n`);

// npm prunes the lock to what the runtime dependencies reach, every version
// and integrity as locked here. Leaving the dev entries in would not do:
// `npm ci --omit=dev` still installs a dev dependency that a runtime package
// names as an optional peer (typescript and the Prisma CLI, through
// @prisma/client), since npm marks those "devOptional".
cpSync(join(root, 'package-lock.json'), join(target, 'package-lock.json'));
execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], {
  cwd: target,
  stdio: ['ignore', 2, 2],
});
const locked = JSON.parse(readFileSync(join(target, 'package-lock.json'), 'utf8')).packages;
const original = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages;
for (const [path, entry] of Object.entries(locked)) {
  if (path !== '' && (original[path]?.version !== entry.version || original[path]?.integrity !== entry.integrity)) {
    fail(`npm changed ${path} (${original[path]?.version} -> ${entry.version}) while pruning the lock; package-lock.json here is out of date`);
  }
}

process.stderr.write(`package: ${target} (${Object.keys(locked).length - 1} packages locked); on the server: npm ci --omit=dev, then npm start\n`);
