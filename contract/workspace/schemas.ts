import { z } from 'zod';
import { named } from '../common/named.js';

/** Workspace configuration documents shared by their get and update operations. */

export const ZActivityServiceConfig = named('ActivityServiceConfig', z.object({
  isEnabled: z.boolean().describe('Whether activity logs are recorded.'),
  immutable: z.boolean().optional().describe('When true, recorded activity cannot be changed or deleted.'),
  triggers: z
    .record(z.record(z.boolean()))
    .optional()
    .describe('Which actions are logged, by feature then action, e.g. {"comment": {"added": true}}.'),
}));
export type TActivityServiceConfig = z.infer<typeof ZActivityServiceConfig>;

/**
 * What enabling email seeds on a config without triggers (the States table):
 * the standard comment triggers and all huddle triggers. This service has no
 * huddle feature yet, so the huddle keys are stored but never fire.
 */
export const EMAIL_DEFAULT_TRIGGERS: Readonly<Record<string, boolean>> = {
  'comment_annotation.add': true,
  'comment.add': true,
  'comment_annotation.status_change': true,
  'comment_annotation.assign': true,
  'comment_annotation.priority_change': true,
  'huddle.create': true,
  'huddle.join': true,
};

/**
 * Triggers that are on unless set to `false` (the others are off unless set
 * to `true`): event types the specification's seeded defaults predate, which
 * an application that turned email on before they existed would otherwise
 * never send. `workflow.notification`: approval workflows' review requests
 * and notification steps.
 */
export const EMAIL_TRIGGERS_ON_UNLESS_OFF: readonly string[] = ['workflow.notification'];

/** What a result shows of a stored provider key: this, then its last 4 characters (a key shorter than 16 shows none). */
export const MASKED_KEY_PREFIX = '****';

export const ZEmailServiceType = named('EmailServiceType', z.enum(['default', 'thirdparty', 'custom']));

export const ZEmailServiceConfig = named('EmailServiceConfig', z.object({
  type: ZEmailServiceType.describe('`default` or `custom`: the service\'s SMTP relay; `thirdparty`: a delivery provider\'s HTTP API with `apiKey`.'),
  apiKey: z.string().describe(`API key of the email delivery provider, masked: \`${MASKED_KEY_PREFIX}\` and its last 4 characters; empty when unset.`),
  fromEmail: z.string().describe('Sender address; empty when unset.'),
  fromCompany: z.string().describe('Sender company name; empty when unset.'),
  triggers: z.record(z.boolean()).describe('Event type → whether it sends an email, e.g. {"comment.add": true}.'),
}));

export const ZEmailConfig = named('EmailConfig', z.object({
  useEmailService: z.boolean(),
  emailServiceConfig: ZEmailServiceConfig,
}));
export type TEmailConfig = z.infer<typeof ZEmailConfig>;

/** A placeholder in the shape of the delivery provider's keys (SendGrid's `SG.<id>.<secret>`). */
export const EXAMPLE_PROVIDER_KEY = 'SG.EXAMPLE_KEY_ID.EXAMPLE_KEY_SECRET';

/**
 * The example config of Update and Get Email Config: sending through the
 * delivery provider, with the triggers that enabling seeded and the provider
 * key masked.
 */
export const EXAMPLE_EMAIL_CONFIG: TEmailConfig = {
  useEmailService: true,
  emailServiceConfig: {
    type: 'thirdparty',
    apiKey: `${MASKED_KEY_PREFIX}${EXAMPLE_PROVIDER_KEY.slice(-4)}`,
    fromEmail: 'notifications@example.com',
    fromCompany: 'Acme Inc.',
    triggers: { ...EMAIL_DEFAULT_TRIGGERS },
  },
};

export const ZPermissionProviderConfig = named('PermissionProviderConfig', z.object({
  usePermissionProvider: z.boolean(),
  permissionProviderConfig: z.object({
    permissionProviderUrl: z.string().describe('Where permission questions are POSTed; empty when unset.'),
    authToken: z.string().describe('Sent as `Authorization: Bearer <authToken>` to the provider; empty when unset.'),
  }),
}));
export type TPermissionProviderConfig = z.infer<typeof ZPermissionProviderConfig>;

/** The example config of Update and Get Permission Provider Config. */
export const EXAMPLE_PERMISSION_PROVIDER_CONFIG: TPermissionProviderConfig = {
  usePermissionProvider: true,
  permissionProviderConfig: {
    permissionProviderUrl: 'https://permissions.example.com/collab/check',
    authToken: 'EXAMPLE-provider-token-replace-me',
  },
};
