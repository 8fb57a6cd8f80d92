import type { EmailConfig } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { EventBus } from '../../platform/events.js';
import type { Jobs } from '../../platform/jobs.js';
import type { AccessChecks } from '../access/checks.js';
import type { UsersRepo } from '../access/repos/users.js';
import { createAudience } from '../notifications/audience.js';
import { createNotificationsRepo } from '../notifications/repo.js';
import type { WorkspaceConfigService } from '../workspace/service.js';
import { defineSendEmail } from './jobs.js';
import { registerEmailProjection } from './projection.js';
import { createProviderSender } from './provider.js';
import { createSmtpSender } from './smtp.js';

/**
 * The email domain in the composition root: the notification audience on
 * the email channel (the notifications domain's own machinery), the send
 * job with its two senders (SMTP relay, provider API), and the projection
 * that enqueues one job per email.
 */
export function registerEmail(deps: {
  db: Db;
  events: EventBus;
  jobs: Jobs;
  users: Pick<UsersRepo, 'findUsers'>;
  checks: AccessChecks;
  settings: Pick<WorkspaceConfigService, 'emailTriggers' | 'emailSender'>;
  options: EmailConfig;
}) {
  const audience = createAudience({ repo: createNotificationsRepo(deps.db), users: deps.users, checks: deps.checks });
  const smtp = createSmtpSender({ url: deps.options.smtpUrl, defaultFrom: deps.options.from });
  const provider = createProviderSender({ baseUrl: deps.options.providerBaseUrl });
  const sendEmail = defineSendEmail({ db: deps.db, jobs: deps.jobs, settings: deps.settings, audience, smtp, provider });
  registerEmailProjection({ events: deps.events, jobs: deps.jobs, sendEmail, settings: deps.settings, audience });
  return { sendEmail };
}
