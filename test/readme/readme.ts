import { spawn } from 'node:child_process';
import { once } from 'node:events';
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

/**
 * Runs a documented shell block as a reader pastes it: bash with -euo
 * pipefail, from the repository root unless `cwd` says otherwise, in its own
 * process group, ending the whole group (background processes too) when
 * bash exits.
 */
export async function runScript(script: string, env: NodeJS.ProcessEnv, cwd = ROOT): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd, env: { ...process.env, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // The group is empty already.
  }
  return { code, stdout, stderr };
}
