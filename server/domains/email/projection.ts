import type { EventType } from '../../../contract/events.js';
import { EMAIL_TRIGGERS_ON_UNLESS_OFF } from '../../../contract/workspace/schemas.js';
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

/** The events that send email: the comment events that notify, and the messages of workflow steps. */
export const EMAIL_EVENTS = [...NOTIFYING_EVENTS, 'workflow.notification'] as const satisfies readonly EventType[];
export type EmailEvent = (typeof EMAIL_EVENTS)[number];

/** Whether a stored trigger map sends email for an event type: off unless `true`, or on unless `false` for the few listed so. */
export function emailTriggerOn(triggers: Readonly<Record<string, boolean>>, type: string): boolean {
  const value = Object.hasOwn(triggers, type) ? triggers[type] : undefined;
  return EMAIL_TRIGGERS_ON_UNLESS_OFF.includes(type) ? value !== false : value === true;
}

/**
 * Email notifications, decided in the event's own transaction, when the
 * application's email service is on and the trigger of the event type is on
 * (emailTriggerOn). A comment event reaches on the email channel the users
 * the inbox rule would reach on the inbox channel (audience.reached: `ALL`,
 * `MINE` for the users it involves, never `NONE`, never the acting user, only
 * readers of the document whose access fields match the thread). A workflow
 * step's message reaches the users it names as a custom notification reaches
 * inboxes (their email config not `NONE`, readers of the document), and the
 * addresses it names. Each user with a stored email address, and each
 * address no such user has, gets one durable send job, keyed by event and
 * recipient, so publishing again never sends twice; the job sends after the
 * commit, and a rolled-back change sends nothing.
 */
export function emailProjection(deps: {
  jobs: Jobs;
  sendEmail: JobDef<SendEmailPayload>;
  settings: Pick<WorkspaceConfigService, 'emailTriggers'>;
  audience: Pick<Audience, 'reached' | 'usersOf' | 'configsOf' | 'readable'>;
}): Projection {
  const { jobs, sendEmail, settings, audience } = deps;

  async function commentRecipients(event: DomainEvent<NotifyingEvent>): Promise<string[]> {
    const { annotation, where, actionUser } = scopeOf(event);
    return audience.reached(where, 'email', involvedIn(event), actionUser.userId, audienceOfAnnotation(annotation));
  }

  async function workflowRecipients(event: DomainEvent<'workflow.notification'>): Promise<string[]> {
    if (event.organizationId === null) return [];
    const where = { apiKeyId: event.apiKeyId, organizationId: event.organizationId, documentId: event.documentId };
    const userIds = [...new Set(event.payload.users.map((user) => user.userId))];
    const configs = await audience.configsOf(where, userIds);
    return audience.readable(where, userIds.filter((userId) => configs.get(userId)?.email !== 'NONE'));
  }

  return projection(EMAIL_EVENTS, 'email', async (raw) => {
    const event = raw as DomainEvent<EmailEvent>;
    const triggers = await settings.emailTriggers(event.apiKeyId);
    if (triggers === null || !emailTriggerOn(triggers, event.type)) return;

    const workflow = event.type === 'workflow.notification' ? (event as DomainEvent<'workflow.notification'>) : undefined;
    const recipients = workflow ? await workflowRecipients(workflow) : await commentRecipients(event as DomainEvent<NotifyingEvent>);
    // Case-insensitively: an address listed besides a user who has it is one email, not two.
    const addressed = new Set<string>();
    const users = recipients.length === 0 ? new Map<string, { email: string }>() : await audience.usersOf(event.apiKeyId, recipients);
    for (const userId of recipients) {
      const address = users.get(userId)?.email;
      if (!address || !EMAIL_ADDRESS.test(address)) continue;
      addressed.add(address.toLowerCase());
      await jobs.enqueue(sendEmail, { apiKeyId: event.apiKeyId, eventId: event.id, userId }, { apiKeyId: event.apiKeyId, key: `email:${event.id}:${userId}` });
    }
    for (const address of workflow?.payload.recipients ?? []) {
      const normalized = address.toLowerCase();
      if (!EMAIL_ADDRESS.test(address) || addressed.has(normalized)) continue;
      addressed.add(normalized);
      // Keyed apart from users' emails: a user ID may look like an address.
      await jobs.enqueue(sendEmail, { apiKeyId: event.apiKeyId, eventId: event.id, address }, { apiKeyId: event.apiKeyId, key: `email-to:${event.id}:${normalized}` });
    }
  });
}
