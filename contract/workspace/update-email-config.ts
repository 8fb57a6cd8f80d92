import { z } from 'zod';
import { operation, resultOf } from '../common/envelope.js';
import { EMAIL_DEFAULT_TRIGGERS, EMAIL_TRIGGERS_ON_UNLESS_OFF, EXAMPLE_EMAIL_CONFIG, EXAMPLE_PROVIDER_KEY, MASKED_KEY_PREFIX, ZEmailConfig, ZEmailServiceType } from './schemas.js';

/** Trigger keys per config: the event types there are, with room for custom and future ones. */
export const MAX_EMAIL_TRIGGERS = 64;

/** Event types as trigger keys: bounded like IDs; `__proto__` is refused for the whole body. */
const ZEmailTriggers = z
  .record(z.string().min(1).max(256), z.boolean())
  .refine((triggers) => Object.keys(triggers).length <= MAX_EMAIL_TRIGGERS, { message: `at most ${MAX_EMAIL_TRIGGERS} triggers` });

/**
 * A sender address: one `local@domain`, no display name, no spaces, quotes,
 * angle brackets or line breaks (it goes into a mail header and a provider's
 * JSON as it is).
 */
export const ZFromEmail = z
  .string()
  .max(320)
  .refine((value) => value === '' || /^[^\s@"<>(),;:\\[\]]+@[^\s@"<>(),;:\\[\]]+\.[^\s@"<>(),;:\\[\]]+$/.test(value), {
    message: 'must be an email address such as notifications@example.com (or empty)',
  });

export const updateEmailConfig = operation({
  path: '/v2/workspace/emailconfig/update',
  summary: 'Update Email Config',
  description:
    `Turns email notifications on or off and configures how they are sent. At least one of \`useEmailService\`, \`emailServiceConfig\` (INVALID_ARGUMENT otherwise); fields not sent keep their stored values, and \`triggers\` merge key by key over the stored ones (at most ${MAX_EMAIL_TRIGGERS} in all). ` +
    `Enabling (\`useEmailService: true\` or \`emailServiceConfig.type: custom\`) while the stored config has no \`triggers\` (never configured, or \`{}\`) first seeds the defaults: \`useEmailService: true\`, triggers ${Object.keys(EMAIL_DEFAULT_TRIGGERS).map((t) => `\`${t}\``).join(', ')} on, and type \`custom\` unless a type other than \`default\` is stored; the other stored fields (\`apiKey\`, \`fromEmail\`, \`fromCompany\`) are kept, and the request's values are then applied over all of them. ` +
    `A trigger is off unless set to \`true\`, except ${EMAIL_TRIGGERS_ON_UNLESS_OFF.map((t) => `\`${t}\``).join(', ')} (approval workflows' review requests and notification steps), on unless set to \`false\`. ` +
    `\`default\` and \`custom\` send through the server's SMTP relay (SMTP_URL), from \`"fromCompany" <fromEmail>\` when \`fromEmail\` is set, else from the server's EMAIL_FROM; \`thirdparty\` sends through the delivery provider's HTTP API with \`apiKey\` and needs both an \`apiKey\` and a \`fromEmail\` (sent or stored; INVALID_ARGUMENT otherwise). A non-empty \`fromEmail\` must be an email address (INVALID_ARGUMENT). ` +
    `The \`apiKey\` is stored encrypted and never returned in clear: results show \`${MASKED_KEY_PREFIX}\` and its last 4 characters (\`${MASKED_KEY_PREFIX}\` alone for a key shorter than 16); sending that masked value back keeps the stored key, \`""\` removes it. ` +
    `Two concurrent updates both take effect. Result: the config after the write.`,
  data: z
    .object({
      useEmailService: z.boolean().optional(),
      emailServiceConfig: z
        .object({
          type: ZEmailServiceType.optional(),
          apiKey: z
            .string()
            .max(4096)
            .regex(/^[\x21-\x7e]*$/, { message: 'must be printable ASCII without spaces' })
            .optional()
            .describe(`The provider's API key; \`""\` removes it; the masked value a result shows keeps it.`),
          fromEmail: ZFromEmail.optional(),
          fromCompany: z
            .string()
            .max(256)
            .regex(/^[^\r\n]*$/, { message: 'must be one line' })
            .optional(),
          triggers: ZEmailTriggers.optional().describe('Event type → whether it sends an email, merged key by key, e.g. {"comment.update": true}.'),
        })
        .strict()
        .optional(),
    })
    .strict()
    .refine((d) => d.useEmailService !== undefined || d.emailServiceConfig !== undefined, {
      message: 'give useEmailService and/or emailServiceConfig',
      path: ['useEmailService'],
    }),
  result: resultOf(ZEmailConfig),
  // Enabling a never-configured application: the default triggers are seeded, then the request applies over them.
  example: {
    data: {
      useEmailService: true,
      emailServiceConfig: { type: 'thirdparty', apiKey: EXAMPLE_PROVIDER_KEY, fromEmail: 'notifications@example.com', fromCompany: 'Acme Inc.' },
    },
    result: { status: 'success', message: 'Email config updated successfully.', data: EXAMPLE_EMAIL_CONFIG },
  },
});
