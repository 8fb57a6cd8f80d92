import type { DomainEvent } from '../../platform/events.js';
import { projection, type Projection } from '../../platform/module.js';
import type { JobDef, Jobs } from '../../platform/jobs.js';
import type { Audience } from '../notifications/audience.js';
import { involvedIn, NOTIFYING_EVENTS, scopeOf, type NotifyingEvent } from '../notifications/projection.js';
import type { WorkspaceConfigService } from '../workspace/service.js';
import type { SendEmailPayload } from './jobs.js';
import { audienceOfAnnotation } from '../access/checks.js';

/** An address worth handing to a relay: anything else would only fail every retry. */
const EMAIL_ADDRESS = /^[^\s@"<>(),;:\\[\]]+@[^\s@"<>(),;:\\[\]]+\.[^\s@"<>(),;:\\[\]]+$/;

/**
 * Email notifications, decided in the event's own transaction: when the
 * application's email service is on and the trigger of the event type is
 * `true`, the event reaches on the email channel the users the inbox rule
 * would reach on the inbox channel (audience.reached: `ALL`, `MINE` for the
 * users it involves, never `NONE`, never the acting user, only readers of
 * the document whose access fields match the thread). Each of them with a
 * stored email address gets one durable send job, keyed by event and
 * recipient, so publishing again never sends twice; the job sends after
 * the commit, and a rolled-back change sends nothing.
 */
export function emailProjection(deps: {
  jobs: Jobs;
  sendEmail: JobDef<SendEmailPayload>;
  settings: Pick<WorkspaceConfigService, 'emailTriggers'>;
  audience: Pick<Audience, 'reached' | 'usersOf'>;
}): Projection {
  const { jobs, sendEmail, settings, audience } = deps;
  return projection(NOTIFYING_EVENTS, 'email', async (raw) => {
    const event = raw as DomainEvent<NotifyingEvent>;
    const triggers = await settings.emailTriggers(event.apiKeyId);
    if (triggers === null || !Object.hasOwn(triggers, event.type) || triggers[event.type] !== true) return;

    const { annotation, where, actionUser } = scopeOf(event);
    const recipients = await audience.reached(where, 'email', involvedIn(event), actionUser.userId, audienceOfAnnotation(annotation));
    if (recipients.length === 0) return;
    const users = await audience.usersOf(event.apiKeyId, recipients);
    for (const userId of recipients) {
      const address = users.get(userId)?.email;
      if (!address || !EMAIL_ADDRESS.test(address)) continue;
      await jobs.enqueue(sendEmail, { apiKeyId: event.apiKeyId, eventId: event.id, userId }, { apiKeyId: event.apiKeyId, key: `email:${event.id}:${userId}` });
    }
  });
}
