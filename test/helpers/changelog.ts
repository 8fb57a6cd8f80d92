// What CHANGELOG.md says about migrations, read the way an operator reads it:
// per release section, the migrations it names and whether it asks for every
// process to be stopped (docs/operations.md "Upgrades": a release that
// rewrites columns in place says "stop every process" at its top). The
// upgrade tests start from the last release's schema and check a rolling
// upgrade only where no such section stands in the way.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../server/db/migrations-folder.js';

export interface ReleaseSection {
  /** The heading without `## `: `Unreleased` or a version such as `0.1.0`. */
  heading: string;
  /** A version heading; `Unreleased` (or any heading that is not a version) is not released. */
  released: boolean;
  /** The migration directory names the section mentions (`20261127092630_account_times_ms`). */
  migrations: string[];
  /** The section tells operators to stop every process before upgrading to it. */
  stopEveryProcess: boolean;
}

const MIGRATION_NAME = /\b\d{14}_[a-z0-9_]+\b/g;
const VERSION_HEADING = /^v?\d+\.\d+\.\d+\b/;

/** The sections of CHANGELOG.md (`## ` headings), newest first as the file lists them. */
export function releaseSections(text = readFileSync(join(repoRoot, 'CHANGELOG.md'), 'utf8')): ReleaseSection[] {
  return text
    .split(/^## /m)
    .slice(1)
    .map((part) => {
      const newline = part.indexOf('\n');
      const heading = (newline < 0 ? part : part.slice(0, newline)).trim();
      const body = newline < 0 ? '' : part.slice(newline);
      return {
        heading,
        released: VERSION_HEADING.test(heading),
        migrations: [...new Set(body.match(MIGRATION_NAME) ?? [])],
        stopEveryProcess: /stop\s+every\s+process/i.test(body),
      };
    });
}

/**
 * The migrations the last release shipped: the shipped ones older than the
 * oldest migration a section above the newest version heading names. Those
 * sections name every migration since (the CHANGELOG lists each release's
 * migrations), so this is well defined for this CHANGELOG; when they name
 * none, the last release shipped all of them. A name that no migration
 * folder has is an error (a typo would move the cut silently).
 */
export function lastReleaseMigrations(shipped: readonly string[], sections = releaseSections()): string[] {
  const unknown = sections.flatMap((section) => section.migrations).filter((name) => !shipped.includes(name));
  if (unknown.length > 0) throw new Error(`CHANGELOG.md names migrations that do not exist: ${unknown.join(', ')}`);
  const firstRelease = sections.findIndex((section) => section.released);
  const unreleased = (firstRelease < 0 ? sections : sections.slice(0, firstRelease)).flatMap((section) => section.migrations);
  if (unreleased.length === 0) return [...shipped];
  const oldest = Math.min(...unreleased.map((name) => shipped.indexOf(name)));
  return shipped.slice(0, oldest);
}

/** The sections that name one of `migrations` and ask for every process to be stopped. */
export function stopEveryProcessSections(migrations: readonly string[], sections = releaseSections()): ReleaseSection[] {
  return sections.filter((section) => section.stopEveryProcess && section.migrations.some((name) => migrations.includes(name)));
}
