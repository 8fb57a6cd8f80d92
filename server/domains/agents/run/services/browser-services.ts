import type { TAgentFinding, TExecutionError } from '../../../../../contract/agents/executions.js';
import type { AccessibilityViolation } from '../browser-strategies.js';
import type { PageContext } from '../context.js';
import type { DraftFinding } from '../findings.js';
import type { BuiltinService } from './service.js';

/**
 * The services that render the page in the browser (browser.ts):
 * screenshot, and accessibility-checker (axe-core's violations as findings).
 * Without a browser installed their page ends BROWSER_UNAVAILABLE, through
 * the strategies they need.
 */

/** Why a needed strategy left its field empty: its own error, else ours. */
function missing(page: PageContext, strategy: string): TExecutionError {
  const error = page.errors.find((entry) => entry.strategy === strategy);
  if (error !== undefined) return { code: error.code, message: error.message, retryable: error.code !== 'BROWSER_UNAVAILABLE' && error.code !== 'UNSUPPORTED' };
  return { code: 'INTERNAL', message: `${strategy} gave nothing`, retryable: true };
}

/** The PNG itself: no findings, a picture is not a finding. */
export const screenshot: BuiltinService = {
  needs: ['web-page-screenshot'],
  run: async (page) => {
    const shot = page.screenshot;
    if (shot === undefined) return { findings: [], output: null, error: missing(page, 'web-page-screenshot') };
    return { findings: [], output: { url: page.finalUrl, ...shot, bytes: Buffer.byteLength(shot.base64, 'base64') } };
  },
};

/** Findings per run page at most: a page of a thousand unlabeled icons says so in its first hundred. */
export const MAX_ACCESSIBILITY_FINDINGS = 100;

const SEVERITY: Record<NonNullable<AccessibilityViolation['impact']>, TAgentFinding['severity']> = {
  critical: 'critical',
  serious: 'high',
  moderate: 'medium',
  minor: 'low',
};

export function accessibilityFindings(page: PageContext, violations: readonly AccessibilityViolation[]): DraftFinding[] {
  const findings: DraftFinding[] = [];
  for (const violation of violations) {
    for (const node of violation.nodes) {
      if (findings.length === MAX_ACCESSIBILITY_FINDINGS) return findings;
      findings.push({
        title: violation.help,
        description: [violation.description, node.failureSummary].filter(Boolean).join('\n\n'),
        // axe leaves impact out only for checks that did not run; a violation without one is at least worth a look.
        severity: violation.impact === null ? 'medium' : SEVERITY[violation.impact],
        targetText: node.text,
        occurrence: 1,
        sourceUrl: page.url,
        suggestion: violation.helpUrl === '' ? '' : `See ${violation.helpUrl}`,
        htmlSelector: node.target.join(' '),
        isPageLevel: false,
        issueType: 'accessibility',
        confidence: 90,
        source: 'service:accessibility-checker',
      });
    }
  }
  return findings;
}

export const accessibilityChecker: BuiltinService = {
  needs: ['web-page-accessibility'],
  run: async (page) => {
    const violations = page.accessibility;
    if (violations === undefined) return { findings: [], output: null, error: missing(page, 'web-page-accessibility') };
    return { findings: accessibilityFindings(page, violations), output: { url: page.finalUrl, violations } };
  },
};
