import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface CapturedMail {
  /** SMTP envelope: MAIL FROM and RCPT TO addresses. */
  from: string;
  to: string[];
  /** The authenticated user. */
  user: string | undefined;
  raw: Buffer;
  parsed(): Promise<ParsedMail>;
}

/**
 * A real SMTP server on port 0 that keeps every message it accepts. It
 * offers no STARTTLS (its bundled certificate has expired, see next-stack
 * notes §3) and accepts only `user` / `password`; a wrong login is refused
 * with a message that echoes the password it got, as a careless relay
 * might, so tests can prove the error the service keeps leaks nothing.
 */
export async function startSmtpCapture(credentials: { user: string; password: string }) {
  const mails: CapturedMail[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: false,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === credentials.user && auth.password === credentials.password) return callback(null, { user: auth.username });
      return callback(new Error(`Invalid login for ${auth.username ?? ''} with password ${auth.password ?? ''}`));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: typeof session.user === 'string' ? session.user : undefined,
          raw,
          parsed: () => simpleParser(raw),
        });
        callback(null, 'queued');
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    /** SMTP_URL for these credentials (or others, to fail the login). */
    url: (user = credentials.user, password = credentials.password) => `smtp://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    /** The recipients of every mail so far, sorted, and forgets them. */
    takeRecipients(): string[] {
      const to = mails.flatMap((m) => m.to).sort();
      mails.length = 0;
      return to;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
