import type { EmailContent } from './render.js';

/** One email on its way out. */
export interface OutgoingEmail extends EmailContent {
  to: { email: string; name?: string };
  /** The application's sender; null: the server's EMAIL_FROM. */
  from: { email: string; name?: string } | null;
}

/** What a failed send reports (job lastError and logs): enough to act on, never a credential. */
export class EmailSendError extends Error {
  override readonly name = 'EmailSendError';
}

/** Error text is kept short: a provider's whole error page is no diagnosis. */
const MAX_DETAIL_CHARS = 300;

/**
 * The message with every secret taken out, in each form it can take in an
 * error: as it is, URL-encoded (a password from a URL), and base64-encoded
 * (SMTP AUTH LOGIN sends the user and the password that way, AUTH PLAIN
 * sends `\0user\0password`), so a relay echoing what it was sent leaks
 * nothing either.
 */
export function redact(message: string, secrets: readonly string[], smtpAuth?: { user: string; pass: string }): string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
    forms.add(Buffer.from(secret).toString('base64'));
  }
  if (smtpAuth) forms.add(Buffer.from(`\0${smtpAuth.user}\0${smtpAuth.pass}`).toString('base64'));
  let out = message;
  // Longest first, so a form that contains another is replaced whole.
  for (const form of [...forms].sort((a, b) => b.length - a.length)) {
    if (form.length >= 4) out = out.split(form).join('[redacted]');
  }
  return out.length > MAX_DETAIL_CHARS ? `${out.slice(0, MAX_DETAIL_CHARS)}…` : out;
}
