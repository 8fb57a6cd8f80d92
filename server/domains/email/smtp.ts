import type { SMTPSentMessageInfo, SMTPTransportOptions, Transporter } from 'nodemailer';
import { EmailSendError, redact, type OutgoingEmail } from './sender.js';

/**
 * How long each SMTP step may take: the relay is the operator's, nearby and
 * quick; a stalled one fails the try and the job retries later, rather than
 * holding a worker for nodemailer's default minutes.
 */
const CONNECTION_TIMEOUT_MS = 10_000;
const GREETING_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 30_000;

function transportOptions(url: URL): SMTPTransportOptions {
  const secure = url.protocol === 'smtps:';
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
    secure,
    ...(url.username === '' ? {} : { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }),
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    greetingTimeout: GREETING_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    logger: false,
    debug: false,
  };
}

/**
 * Sends email of types `default` and `custom` through the operator's SMTP
 * relay (SMTP_URL: smtp:// upgrades with STARTTLS when the relay offers it,
 * smtps:// is TLS from the start). Errors carry the relay's answer with the
 * relay's credentials taken out.
 */
export function createSmtpSender(options: { url: string | undefined; defaultFrom: string }) {
  const url = options.url === undefined ? undefined : new URL(options.url);
  const auth = url && url.username !== '' ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined;
  let transport: Transporter<SMTPSentMessageInfo> | undefined;

  return {
    async send(email: OutgoingEmail): Promise<{ messageId: string }> {
      if (url === undefined) {
        throw new EmailSendError('SMTP_URL is not set: email of type default or custom cannot be sent until the operator sets it (e.g. smtp://user:password@smtp.example.com:587)');
      }
      // Imported on the first send: most processes never send one, and nodemailer adds ~10 MB to the resident memory.
      transport ??= (await import('nodemailer')).default.createTransport(transportOptions(url));
      try {
        const info = await transport.sendMail({
          from: email.from === null ? options.defaultFrom : { name: email.from.name ?? '', address: email.from.email },
          to: email.to.name ? { name: email.to.name, address: email.to.email } : email.to.email,
          subject: email.subject,
          text: email.text,
          html: email.html,
        });
        return { messageId: info.messageId };
      } catch (error) {
        const err = error as Error & { code?: string };
        const secrets = auth ? [auth.pass, auth.user] : [];
        throw new EmailSendError(redact(`SMTP delivery failed (${err.code ?? 'error'}): ${err.message}`, secrets, auth));
      }
    },
  };
}

export type SmtpSender = ReturnType<typeof createSmtpSender>;
