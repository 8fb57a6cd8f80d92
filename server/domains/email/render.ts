import type { TUserRef } from '../../../contract/common/content.js';
import { idMapOf } from '../../lib/id-map.js';
import type { DomainEvent } from '../../platform/events.js';
import { headline, scopeOf, type NotifyingEvent } from '../notifications/projection.js';

/** What one email says, in both forms; every caller-provided value in `html` is escaped. */
export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

/** A subject is one header line; longer headlines are cut (the body carries the rest). */
const MAX_SUBJECT_CHARS = 200;
/** A comment quoted in an email is cut past this: an email is a pointer to the document, not its copy. */
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

/**
 * The email of a notifying event for one recipient: the notification's
 * headline with its variables filled ({actionUser}, {recipientUser} and the
 * event's own, e.g. {status}) as the subject, then the comment it quotes and
 * where it happened.
 */
export function renderEmail(event: DomainEvent<NotifyingEvent>, recipient: { userId: string; name: string }): EmailContent {
  const { template, data, body } = headline(event);
  const { where, actionUser } = scopeOf(event);
  const variables = idMapOf<string>([...Object.entries(data), ['actionUser', nameOf(actionUser as TUserRef)], ['recipientUser', nameOf(recipient)]]);
  const title = oneLine(template.replace(/\{([^{}\s]+)\}/g, (whole, name: string) => variables[name] ?? whole));
  const quoted = body === undefined || body === '' ? undefined : cut(body, MAX_BODY_CHARS);
  const place = `Document ${where.documentId} in organization ${where.organizationId}`;

  const text = [title, ...(quoted === undefined ? [] : ['', quoted]), '', place, ''].join('\n');
  const html = [
    '<!doctype html>',
    '<html><body>',
    `<p><strong>${escapeHtml(title)}</strong></p>`,
    ...(quoted === undefined ? [] : [`<blockquote style="white-space: pre-wrap">${escapeHtml(quoted)}</blockquote>`]),
    `<p style="color: #666">${escapeHtml(place)}</p>`,
    '</body></html>',
    '',
  ].join('\n');
  return { subject: cut(title, MAX_SUBJECT_CHARS), text, html };
}
