import type { DraftFinding } from './findings.js';

/**
 * The `guardrails` post-processing stage: findings a page produced twice
 * (same source URL, target text, occurrence and issue type) are kept once,
 * and every text field loses its HTML tags and scripts: a finding becomes a
 * comment others read, and its text came from a page or a model.
 */
export function guard(findings: readonly DraftFinding[]): DraftFinding[] {
  const seen = new Set<string>();
  const kept: DraftFinding[] = [];
  for (const finding of findings) {
    const clean: DraftFinding = {
      ...finding,
      title: plain(finding.title),
      description: plain(finding.description),
      targetText: plain(finding.targetText),
      suggestion: plain(finding.suggestion),
    };
    const key = JSON.stringify([clean.sourceUrl, clean.targetText, clean.occurrence, clean.issueType]);
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(clean);
  }
  return kept;
}

/** Text without markup: scripts and styles with their content, then every tag; entities stay as written. */
export function plain(text: string): string {
  return text
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<\/?[a-z!][^>]*>/gi, '')
    .trim();
}
