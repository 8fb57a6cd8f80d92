import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
export const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The text of a `## title` section, up to the next `## ` heading. */
export function section(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README has no section "## ${title}"`);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end < 0 ? undefined : end);
}

/** The fenced code blocks of a text whose info string is `info`, in order. */
export function codeBlocks(text: string, info: string): string[] {
  const blocks: string[] = [];
  const fence = /^```([^\n]*)\n([\s\S]*?)^```$/gm;
  for (const [, infoString, body] of text.matchAll(fence)) {
    if (infoString!.trim() === info) blocks.push(body!);
  }
  return blocks;
}

/** The body rows of the first table in a text, as cells (`\|` inside a cell stays `|`). */
export function tableRows(text: string): string[][] {
  const lines = text.split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  if (first < 0) return [];
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim().replaceAll('\\|', '|')));
  }
  return rows;
}

/** The `code` spans of a cell. */
export function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map(([, code]) => code!);
}
