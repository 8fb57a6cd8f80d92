import { MAX_COMMENT_HTML, MAX_COMMENT_TEXT } from '../../../contract/comments/inputs.js';

/**
 * The comment of an agent's suggestion thread: the finding's title, its
 * description and the change it suggests, as plain text and as HTML (the two
 * forms a comment has). Each is clipped to the size Add Comments accepts, so
 * a suggestion reads back through every operation a user's comment does.
 */
export function suggestionComment(finding: { title: string; description: string; suggestion: string }): { commentText: string; commentHtml?: string } {
  const parts = [finding.title, finding.description, finding.suggestion].map((p) => p.trim());
  const [title, description, suggestion] = parts as [string, string, string];
  const text = [title, description, suggestion ? `Suggestion: ${suggestion}` : ''].filter((p) => p !== '').join('\n\n');
  const html = [
    title ? `<p><strong>${escapeHtml(title)}</strong></p>` : '',
    description ? `<p>${escapeHtml(description)}</p>` : '',
    suggestion ? `<p><em>Suggestion:</em> ${escapeHtml(suggestion)}</p>` : '',
  ].join('');
  // Past its limit the HTML is left out rather than cut mid-tag: the plain text still carries the finding.
  return { commentText: text.slice(0, MAX_COMMENT_TEXT), ...(html.length <= MAX_COMMENT_HTML ? { commentHtml: html } : {}) };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
