import type { AgentSuggestions } from '../../comments/agent-suggestions.js';
import type { Suggestions } from './runner.js';

/**
 * The runner's suggestions on the comments domain: a finding's kind for the
 * thread (`page` for a page-level one, `text` when it names text on the
 * page, else `pin` at its element), and the thread IDs back by finding.
 */
export function suggestionsThrough(comments: AgentSuggestions): Suggestions {
  return {
    async add({ app, findings, ...rest }) {
      const threads = await comments.addAgentSuggestions(app, {
        ...rest,
        findings: findings.map((finding) => ({
          findingId: finding.id,
          url: finding.sourceUrl,
          title: finding.title,
          description: finding.description,
          severity: finding.severity,
          findingType: finding.isPageLevel ? 'page' : finding.targetText !== '' ? 'text' : 'pin',
          issueType: finding.issueType,
          confidence: finding.confidence,
          suggestion: finding.suggestion,
          htmlSelector: finding.htmlSelector,
          targetText: finding.targetText,
          occurrence: finding.occurrence,
        })),
      });
      return new Map(threads.map((thread) => [thread.findingId, thread.annotationId]));
    },
    deleteOpen: ({ app, ...rest }) => comments.deleteOpenAgentSuggestions(app, rest),
  };
}
