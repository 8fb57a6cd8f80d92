import { z } from 'zod';
import type { DomainEvent, EventBus } from '../../platform/events.js';
import type { JobDef, Jobs } from '../../platform/jobs.js';
import type { Audience } from '../notifications/audience.js';
import type { WorkspaceConfigService } from '../workspace/service.js';
import type { ProviderSender } from './provider.js';
import { renderEmail } from './render.js';
import type { EmailEvent } from './projection.js';
import type { OutgoingEmail } from './sender.js';
import type { SmtpSender } from './smtp.js';

/** One email of an event: to a user (their stored address, read when the job runs) or to an address the event names. */
export const ZSendEmailPayload = z.union([
  z.object({ apiKeyId: z.string(), eventId: z.string(), userId: z.string() }),
  z.object({ apiKeyId: z.string(), eventId: z.string(), address: z.string() }),
]);
export type SendEmailPayload = z.infer<typeof ZSendEmailPayload>;

/** Tries of one email: the first and 7 retries over about an hour (below), then the job fails with the last reason. */
const MAX_ATTEMPTS = 8;
/** 30 s doubling, at most 30 min: 30 s, 1, 2, 4, 8, 16, 30 min. A relay or provider outage of an hour loses nothing. */
export const emailRetryIn = (attempt: number) => Math.min(30_000 * 2 ** (attempt - 1), 30 * 60_000);

/**
 * The job that sends one email: one per (event, recipient), enqueued by the
 * email projection; a recipient is a user, or an address a workflow's
 * notification step lists. It reads what it needs when it runs, so it sends
 * what is true then: nothing when the application turned its email service
 * off meanwhile, when the event is gone (its document deleted, a user named
 * in it erased) or when the recipient user was erased or has no email
 * address any more; else the content of the event, through the application's configured
 * sender and key. A failure is retried with backoff; it never touches the
 * request that caused the event. Delivery is at least once: a worker that
 * dies after the relay accepted the email but before recording it sends it
 * again.
 */
export function defineSendEmail(deps: {
  events: Pick<EventBus, 'find'>;
  jobs: Jobs;
  settings: Pick<WorkspaceConfigService, 'emailSender'>;
  audience: Pick<Audience, 'usersOf'>;
  smtp: SmtpSender;
  provider: ProviderSender;
}): JobDef<SendEmailPayload> {
  const { events, settings, audience, smtp, provider } = deps;

  async function eventOf(apiKeyId: string, eventId: string): Promise<DomainEvent<EmailEvent> | null> {
    return (await events.find(apiKeyId, eventId)) as DomainEvent<EmailEvent> | null;
  }

  /** Where the email goes and whom it greets; null when the recipient user is gone or has no address. */
  async function recipientOf(payload: SendEmailPayload): Promise<{ to: OutgoingEmail['to']; user: { userId: string; name: string } } | null> {
    if ('address' in payload) return { to: { email: payload.address }, user: { userId: payload.address, name: '' } };
    const user = (await audience.usersOf(payload.apiKeyId, [payload.userId])).get(payload.userId);
    if (!user?.email) return null;
    return { to: { email: user.email, ...(user.name ? { name: user.name } : {}) }, user: { userId: payload.userId, name: user.name } };
  }

  return deps.jobs.define<SendEmailPayload>({
    kind: 'email.send',
    idPrefix: 'eml',
    payload: ZSendEmailPayload,
    maxAttempts: MAX_ATTEMPTS,
    retryIn: emailRetryIn,
    async run({ payload, signal }) {
      const sender = await settings.emailSender(payload.apiKeyId);
      if (sender === null) return { skipped: 'the email service is off' };
      const event = await eventOf(payload.apiKeyId, payload.eventId);
      if (event === null) return { skipped: 'the event is gone' };
      const recipient = await recipientOf(payload);
      if (recipient === null) return { skipped: 'the recipient has no email address' };

      const email: OutgoingEmail = {
        ...renderEmail(event, recipient.user),
        to: recipient.to,
        from: sender.fromEmail === '' ? null : { email: sender.fromEmail, ...(sender.fromCompany ? { name: sender.fromCompany } : {}) },
      };
      if (sender.type === 'thirdparty') {
        await provider.send(email, sender.apiKey, signal);
        return { sent: true, via: 'provider' };
      }
      await smtp.send(email);
      return { sent: true, via: 'smtp' };
    },
  });
}
