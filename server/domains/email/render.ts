import type { TUserRef } from '../../../contract/common/content.js';
import { idMapOf } from '../../lib/id-map.js';
import type { DomainEvent } from '../../platform/events.js';
import { headline, scopeOf, type NotifyingEvent } from '../notifications/projection.js';
import type { EmailEvent } from './projection.js';

/** What one email says, in both forms; every caller-provided value in `html` is escaped. */
export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

/** A subject is one header line; longer headlines are cut (the body carries the rest). */
const MAX_SUBJECT_CHARS = 200;
/** A text quoted in an email (a comment, a workflow message's body) is cut past this: an email is a pointer to the document, not its copy. */
const MAX_BODY_CHARS = 10_000;

const nameOf = (user: { userId: string; name?: string | undefined }) => (user.name ? user.name : user.userId);

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** One line: control characters (CR/LF above all, which would end a mail header) become spaces. */
function oneLine(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

function cut(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
}

/** What an email says before it is laid out: its headline, the text it quotes, and where it comes from. */
interface Parts {
  title: string;
  quoted: string | undefined;
  footer: string[];
}

function placeOf(organizationId: string | null, documentId: string | null): string[] {
  if (organizationId === null) return [];
  return [documentId === null ? `Organization ${organizationId}` : `Document ${documentId} in organization ${organizationId}`];
}

/**
 * A comment event: the notification's headline with its variables filled
 * ({actionUser}, {recipientUser} and the event's own, e.g. {status}), the
 * comment it quotes and where it happened.
 */
function commentParts(event: DomainEvent<NotifyingEvent>, recipient: { userId: string; name: string }): Parts {
  const { template, data, body } = headline(event);
  const { where, actionUser } = scopeOf(event);
  const variables = idMapOf<string>([...Object.entries(data), ['actionUser', nameOf(actionUser as TUserRef)], ['recipientUser', nameOf(recipient)]]);
  return {
    title: template.replace(/\{([^{}\s]+)\}/g, (whole, name: string) => variables[name] ?? whole),
    quoted: body,
    footer: placeOf(where.organizationId, where.documentId),
  };
}

/**
 * A workflow step's message: its headline as it is (rendered by the step,
 * no variables), its body, and the step it comes from (what a reviewer
 * names to record a decision).
 */
function workflowParts(event: DomainEvent<'workflow.notification'>): Parts {
  const { workflow, headline: title, body } = event.payload;
  return {
    title,
    quoted: body ?? undefined,
    footer: [`Workflow ${workflow.definitionId}, execution ${workflow.executionId}, step ${workflow.stepId} (${workflow.nodeId})`, ...placeOf(event.organizationId, event.documentId)],
  };
}

/**
 * The email of an event for one recipient: the headline as the subject and
 * first line, then the text it quotes, then where it comes from.
 */
export function renderEmail(event: DomainEvent<EmailEvent>, recipient: { userId: string; name: string }): EmailContent {
  const parts = event.type === 'workflow.notification' ? workflowParts(event as DomainEvent<'workflow.notification'>) : commentParts(event as DomainEvent<NotifyingEvent>, recipient);
  const title = oneLine(parts.title);
  const quoted = parts.quoted === undefined || parts.quoted === '' ? undefined : cut(parts.quoted, MAX_BODY_CHARS);

  const text = [title, ...(quoted === undefined ? [] : ['', quoted]), '', ...parts.footer, ''].join('\n');
  const html = [
    '<!doctype html>',
    '<html><body>',
    `<p><strong>${escapeHtml(title)}</strong></p>`,
    ...(quoted === undefined ? [] : [`<blockquote style="white-space: pre-wrap">${escapeHtml(quoted)}</blockquote>`]),
    ...parts.footer.map((line) => `<p style="color: #666">${escapeHtml(line)}</p>`),
    '</body></html>',
    '',
  ].join('\n');
  return { subject: cut(title, MAX_SUBJECT_CHARS), text, html };
}
