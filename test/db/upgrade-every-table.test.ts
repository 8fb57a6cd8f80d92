// Upgrading a database that holds data in every table: built at an older set
// of migrations, filled with rows generated from the schema the database
// reports (test/helpers/schema-fill.ts), migrated by this version's migration
// runner, read back. Nothing here names a table or a migration, so a new one
// is covered as soon as it ships.
//
// Where it starts, both when they differ:
// - the last release's migrations, as CHANGELOG.md records them (the
//   migrations older than the first one its unreleased section names): the
//   database an operator upgrades from;
// - every migration but the newest: the step the newest migration adds,
//   also when the CHANGELOG has not named it yet.
//
// A column a migration retypes compares through the conversion the CHANGELOG
// documents: a DateTime becomes its Unix milliseconds (BIGINT). Any other
// retyped column compares by value as the two types print it; where a
// conversion changes the value, add it to expectedAfter() beside a
// per-migration case in test/db/upgrades/.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyMigrations } from '../../server/db/migrate.js';
import { withTemporaryPgDatabase } from '../../server/db/migration-engine.js';
import { shippedMigrations } from '../../server/db/migrations-folder.js';
import { lastReleaseMigrations, releaseSections } from '../helpers/changelog.js';
import { comparable, describeSchema, readRows, rowsFor, ROWS_PER_TABLE, writeRows, type Column, type Row, type Schema } from '../helpers/schema-fill.js';

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL;

const shipped = shippedMigrations('sqlite');
const lastRelease = lastReleaseMigrations(shipped);
const releaseHeading = releaseSections().find((section) => section.released)?.heading ?? 'none';

/** Each start: the last migration applied before the fill, and what it stands for. */
const starts = [
  { label: `the last release (${releaseHeading})`, through: lastRelease.at(-1) },
  { label: 'every migration but the newest', through: shipped.at(-2) },
].filter((start, i, all) => start.through !== undefined && start.through !== shipped.at(-1) && all.findIndex((s) => s.through === start.through) === i);

/** What a value written as `before` reads as after the upgrade, in comparable form. */
function expectedAfter(value: Row[string], before: Column, after: Column): string {
  if (value !== null && before.kind === 'datetime' && after.kind === 'int64') return String((value as Date).getTime());
  return comparable(value, before.kind);
}

function rowLines(rows: Row[], columns: string[], valueOf: (row: Row, column: string) => string): string[] {
  return rows.map((row) => JSON.stringify(columns.map((column) => valueOf(row, column)))).sort();
}

/**
 * The whole test on an empty database at `url`: migrations through `through`,
 * rows in every table, the remaining migrations, every row read back. Returns
 * what the assertions compare.
 */
async function upgradeFilled(url: string, through: string) {
  await applyMigrations(url, { through });
  const before: Schema = await describeSchema(url);
  const filled = rowsFor(before);
  await writeRows(url, before, filled);
  const counts = Object.fromEntries([...(await readRows(url, [...before.keys()])).entries()].map(([table, rows]) => [table, rows.length]));

  const { applied } = await applyMigrations(url);
  const after = await describeSchema(url);
  const kept = [...before.keys()].filter((table) => after.has(table));
  const read = await readRows(url, kept);
  const actual: Record<string, string[]> = {};
  const expected: Record<string, string[]> = {};
  for (const table of kept) {
    const columnsBefore = before.get(table)!.columns;
    const columnsAfter = after.get(table)!.columns;
    const both = columnsBefore.filter((c) => columnsAfter.some((a) => a.name === c.name)).map((c) => c.name);
    const beforeOf = (name: string) => columnsBefore.find((c) => c.name === name)!;
    const afterOf = (name: string) => columnsAfter.find((c) => c.name === name)!;
    expected[table] = rowLines(filled.rows.get(table)!, both, (row, column) => expectedAfter(row[column]!, beforeOf(column), afterOf(column)));
    actual[table] = rowLines(read.get(table)!, both, (row, column) => comparable(row[column], afterOf(column).kind));
  }
  const retyped = kept.flatMap((table) =>
    before.get(table)!.columns.flatMap((c) => {
      const now = after.get(table)!.columns.find((a) => a.name === c.name);
      return now && now.declared !== c.declared ? [`${table}.${c.name}: ${c.declared} -> ${now.declared}`] : [];
    }),
  );
  return { before, filled, counts, applied, dropped: [...before.keys()].filter((table) => !after.has(table)), actual, expected, retyped };
}

async function check(url: string, through: string): Promise<void> {
  const result = await upgradeFilled(url, through);
  const tables = [...result.before.keys()];
  // Every table the database had at that point holds the generated rows: none was left out.
  expect(tables.length, 'tables at the older migrations').toBeGreaterThan(0);
  expect(result.counts).toEqual(Object.fromEntries(tables.map((table) => [table, ROWS_PER_TABLE])));
  expect(result.filled.order.slice().sort()).toEqual(tables.slice().sort());
  expect(result.applied).toEqual(shipped.slice(shipped.indexOf(through) + 1));
  // Forward-only and additive: no table of the older schema disappears (dropping one takes two releases
  // and is a deliberate loss; this test would have to be told).
  expect(result.dropped, 'tables the upgrade dropped').toEqual([]);
  for (const table of Object.keys(result.expected)) {
    const retyped = result.retyped.filter((column) => column.startsWith(`${table}.`));
    expect(result.actual[table], `${table} after the upgrade (retyped columns: ${retyped.join(', ') || 'none'})`).toEqual(result.expected[table]);
  }
}

describe.each(starts)('a database at $label ($through), a row in every table, upgraded to the newest migration', ({ through }) => {
  const dir = mkdtempSync(join(tmpdir(), 'collab-upgrade-all-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every row on SQLite', async () => {
    await check(`file:${join(dir, 'upgrade.db')}`, through!);
  });

  it.skipIf(!TEST_DATABASE_URL)('keeps every row on PostgreSQL', async () => {
    await withTemporaryPgDatabase(TEST_DATABASE_URL ?? '', (url) => check(url, through!), 'test_upgrade_all');
  });
});

describe('the start points', () => {
  it('both providers ship the same migrations, and there is an older set to start from', () => {
    expect(shippedMigrations('postgresql')).toEqual(shipped);
    expect(starts.length).toBeGreaterThan(0);
  });
});
