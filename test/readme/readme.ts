import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');

/**
 * The documents, in the order a reader meets them: the README, the front
 * door, then the pages of docs/. Their tested blocks (`sh readme-test`) run
 * in this order as one script, so a page's blocks may use what the README's
 * quick start set up; every page of docs/ must be listed
 * (test/readme/readme-blocks.test.ts).
 */
export const DOCUMENTS = [
  'README.md',
  'docs/api.md',
  'docs/realtime.md',
  'docs/webhooks.md',
  'docs/operations.md',
  'docs/decisions.md',
  'docs/agents.md',
  'docs/workflows.md',
  'docs/architecture.md',
  'docs/testing.md',
] as const;
export type Document = (typeof DOCUMENTS)[number];

/** The text of a document, by its path from the repository root. */
export function readDocument(document: string): string {
  return readFileSync(join(ROOT, document), 'utf8');
}

export const README = readDocument('README.md');

/** The text of a `## title` section of one text, up to the next `## ` heading; undefined when it has none. */
function sectionOf(text: string, title: string): string | undefined {
  const start = text.indexOf(`\n## ${title}\n`);
  if (start < 0) return undefined;
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/**
 * The text of a `## title` section, up to the next `## ` heading: of the
 * given document, or of the one document (the README or a page of docs/)
 * that has it. A title that none or several have is an error, so a test
 * never reads the wrong table after a section moves.
 */
export function section(title: string, document?: Document): string {
  if (document !== undefined) {
    const found = sectionOf(readDocument(document), title);
    if (found === undefined) throw new Error(`${document} has no section "## ${title}"`);
    return found;
  }
  const found = DOCUMENTS.flatMap((name) => {
    const text = sectionOf(readDocument(name), title);
    return text === undefined ? [] : [{ name, text }];
  });
  if (found.length === 0) throw new Error(`no document has a section "## ${title}" (${DOCUMENTS.join(', ')})`);
  if (found.length > 1) throw new Error(`several documents have a section "## ${title}": ${found.map(({ name }) => name).join(', ')}; name one`);
  return found[0]!.text;
}

/** The tested shell blocks (`sh readme-test`) of every document, README first, in the order they run. */
export function testedBlocks(): string[] {
  return DOCUMENTS.flatMap((document) => codeBlocks(readDocument(document), 'sh readme-test'));
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
