import type { EmailConfig } from '../../config.js';
import type { EventBus } from '../../platform/events.js';
import type { Jobs } from '../../platform/jobs.js';
import type { Audience } from '../notifications/audience.js';
import type { WorkspaceConfigService } from '../workspace/service.js';
import { defineSendEmail } from './jobs.js';
import { emailProjection } from './projection.js';
import { createProviderSender } from './provider.js';
import { createSmtpSender } from './smtp.js';

/**
 * Email as a channel of notifications: the notifications domain's audience
 * on the email channel, the send job with its two senders (SMTP relay,
 * provider API), and the projection that enqueues one job per email. The
 * notifications module builds it with its own audience and hands the
 * projection to the composition root after its inbox projection.
 */
export function emailChannel(deps: {
  events: Pick<EventBus, 'find'>;
  jobs: Jobs;
  audience: Audience;
  settings: Pick<WorkspaceConfigService, 'emailTriggers' | 'emailSender'>;
  options: EmailConfig;
}) {
  const { audience } = deps;
  const smtp = createSmtpSender({ url: deps.options.smtpUrl, defaultFrom: deps.options.from });
  const provider = createProviderSender({ baseUrl: deps.options.providerBaseUrl });
  const sendEmail = defineSendEmail({ events: deps.events, jobs: deps.jobs, settings: deps.settings, audience, smtp, provider });
  return { sendEmail, projection: emailProjection({ jobs: deps.jobs, sendEmail, settings: deps.settings, audience }) };
}
