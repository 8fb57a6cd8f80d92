// The server code of the version before the newest migration, taken from git
// history and made runnable beside this checkout: what a process of the
// previous version runs during a rolling upgrade
// (test/cluster/rolling-upgrade.test.ts).
//
// "Previous" is the mainline (first-parent) commit just before the one that
// brought the newest migration in: the last code that did not know it. A
// migration merged from a branch counts from the merge, so the previous
// version is main as it was, not the branch's own history. A newest
// migration not yet committed makes HEAD the previous version.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, shippedMigrations } from '../../server/db/migrations-folder.js';

/** Overrides the commit taken as the previous version (any commit-ish git accepts), to try the test against another one. */
export const PREVIOUS_COMMIT_VAR = 'TEST_PREVIOUS_COMMIT';

export interface PreviousCommit {
  commit: string;
  /** How it was chosen, for the test's output. */
  how: string;
  /** The migrations it ships (sqlite folder; both providers have the same names). */
  migrations: string[];
  /** The shipped migrations it does not know: what the rolling upgrade crosses. */
  newer: string[];
}

function git(args: string[]): string | undefined {
  const result = spawnSync('git', args, { cwd: repoRoot, encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/**
 * The previous version's commit, or why there is none to test: not a git
 * checkout, history too shallow, or its migrations are not an older part of
 * ours (a shipped migration was edited or removed, which the forward-only
 * policy forbids, is an error instead).
 */
export function previousCommit(): PreviousCommit | { skip: string } {
  if (git(['rev-parse', '--git-dir']) === undefined) return { skip: `${repoRoot} is not a git checkout` };
  const shipped = shippedMigrations('sqlite');
  const newest = shipped.at(-1);
  if (newest === undefined) return { skip: 'no migrations are shipped' };
  let commit: string | undefined;
  let how: string;
  const override = process.env[PREVIOUS_COMMIT_VAR];
  if (override) {
    commit = git(['rev-parse', '--verify', '--quiet', `${override}^{commit}`]);
    if (!commit) return { skip: `${PREVIOUS_COMMIT_VAR}=${override} is not a commit of this repository` };
    how = `${PREVIOUS_COMMIT_VAR}=${override}`;
  } else {
    const file = `prisma/sqlite/migrations/${newest}/migration.sql`;
    const added = git(['log', '--first-parent', '--diff-filter=A', '--format=%H', 'HEAD', '--', file])?.split('\n').filter(Boolean).at(-1);
    if (added) {
      commit = git(['rev-parse', '--verify', '--quiet', `${added}^1^{commit}`]);
      const shallow = git(['rev-parse', '--is-shallow-repository']) === 'true';
      if (!commit) return { skip: `the parent of ${added.slice(0, 12)} (which added ${newest}) is not in this clone${shallow ? ' (a shallow clone: git fetch --unshallow)' : ''}` };
      how = `the parent of ${added.slice(0, 12)}, which brought ${newest} into the mainline`;
    } else if (git(['ls-files', '--error-unmatch', file]) === undefined) {
      commit = git(['rev-parse', '--verify', 'HEAD^{commit}']);
      if (!commit) return { skip: 'no commit checked out' };
      how = `HEAD (${newest} is not committed yet)`;
    } else {
      return { skip: `no commit adds ${newest} in this clone's history (shallow: ${git(['rev-parse', '--is-shallow-repository'])}); a full clone has it` };
    }
  }
  const listed = git(['ls-tree', '--name-only', `${commit}:prisma/sqlite/migrations`]);
  if (listed === undefined) return { skip: `${commit.slice(0, 12)} has no prisma/sqlite/migrations folder` };
  const migrations = listed.split('\n').filter((name) => /^\d{14}_/.test(name)).sort();
  if (migrations.join('\n') !== shipped.slice(0, migrations.length).join('\n')) {
    throw new Error(`the migrations of ${commit.slice(0, 12)} are not the oldest of ours (${migrations.join(', ')}): a shipped migration was renamed or removed`);
  }
  const edited = git(['diff', '--name-only', commit, '--', ...migrations.flatMap((name) => [`prisma/sqlite/migrations/${name}`, `prisma/postgresql/migrations/${name}`])]);
  if (edited) throw new Error(`migrations shipped by ${commit.slice(0, 12)} were edited since: ${edited.split('\n').join(', ')}`);
  return { commit, how, migrations, newer: shipped.slice(migrations.length) };
}

/**
 * Whether this checkout's node_modules can stand in for the old version's:
 * every dependency of its package.json installed, at a version its range
 * accepts. A process of the previous version runs on its own install; the
 * test borrows ours, which is only faithful when the ranges agree, and
 * impossible when a package it imports was dropped since.
 */
export function dependencyMismatches(oldPackageJson: string, nodeModules = join(repoRoot, 'node_modules')): string[] {
  const manifest = JSON.parse(oldPackageJson) as { dependencies?: Record<string, string> };
  const problems: string[] = [];
  for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
    const path = join(nodeModules, name, 'package.json');
    if (!existsSync(path)) {
      problems.push(`${name} ${range} is not installed`);
      continue;
    }
    const { version } = JSON.parse(readFileSync(path, 'utf8')) as { version: string };
    if (satisfies(version, range) === false) problems.push(`${name} ${range}: ${version} is installed`);
  }
  return problems;
}

/** A version against the range forms package.json files here use (exact, ^, ~); undefined for any other form. */
export function satisfies(version: string, range: string): boolean | undefined {
  const wanted = /^([\^~]?)(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?$/.exec(range.trim());
  const have = /^(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?$/.exec(version.trim());
  if (!wanted || !have) return undefined;
  const [, op, ...base] = wanted;
  const [major, minor, patch] = base.slice(0, 3).map(Number) as [number, number, number];
  const [vMajor, vMinor, vPatch] = have.slice(1, 4).map(Number) as [number, number, number];
  if (op === '' || base[3] !== undefined || have[4] !== undefined) return version.trim() === range.trim().replace(/^[\^~]/, '');
  const atLeast = vMajor !== major ? vMajor > major : vMinor !== minor ? vMinor > minor : vPatch >= patch;
  if (!atLeast) return false;
  if (op === '~') return vMajor === major && vMinor === minor;
  if (major > 0) return vMajor === major;
  if (minor > 0) return vMajor === 0 && vMinor === minor;
  return vMajor === 0 && vMinor === 0 && vPatch === patch;
}

export interface Checkout {
  root: string;
  remove(): void;
}

/**
 * The commit's files in a temporary directory (`git archive`: the repository
 * and its worktrees stay untouched), this checkout's node_modules linked in,
 * and its own Prisma clients generated from its own models (its
 * prisma/tools/generate-clients.mjs, as its postinstall would). When the
 * commit cannot run on our node_modules, the reason instead.
 */
export function checkOut(commit: string): Checkout | { skip: string } {
  const root = mkdtempSync(join(tmpdir(), 'collab-previous-'));
  const remove = () => rmSync(root, { recursive: true, force: true });
  try {
    execFileSync('sh', ['-c', 'git archive --format=tar "$1" | tar -x -C "$2"', 'sh', commit, root], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'] });
    const mismatches = dependencyMismatches(readFileSync(join(root, 'package.json'), 'utf8'));
    const generator = join(root, 'prisma', 'tools', 'generate-clients.mjs');
    const skip =
      mismatches.length > 0
        ? `${commit.slice(0, 12)} cannot run on this checkout's node_modules: ${mismatches.join('; ')}`
        : !existsSync(generator)
          ? `${commit.slice(0, 12)} has no prisma/tools/generate-clients.mjs to generate its Prisma clients with`
          : undefined;
    if (skip) {
      remove();
      return { skip };
    }
    symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
    execFileSync(process.execPath, [generator], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    return { root, remove };
  } catch (error) {
    remove();
    throw error;
  }
}
