import { z } from 'zod';
import { operation, resultOf } from '../common/envelope.js';
import { EMAIL_DEFAULT_TRIGGERS, ZEmailConfig, ZEmailServiceType } from './schemas.js';

export const updateEmailConfig = operation({
  path: '/v2/workspace/emailconfig/update',
  summary: 'Update Email Config',
  description:
    `Turns email notifications on or off and configures how they are sent. At least one of \`useEmailService\`, \`emailServiceConfig\` (INVALID_ARGUMENT otherwise); fields not sent keep their stored values, and \`triggers\` merge key by key over the stored ones. Enabling (\`useEmailService: true\` or \`emailServiceConfig.type: custom\`) while the stored config has no \`triggers\` first seeds the defaults: type \`custom\`, \`useEmailService: true\`, triggers ${Object.keys(EMAIL_DEFAULT_TRIGGERS).map((t) => `\`${t}\``).join(', ')} on; stored non-trigger fields are kept and the request's values are applied over them. \`default\` and \`custom\` send through the server's SMTP relay (SMTP_URL); \`thirdparty\` through the provider's HTTP API with \`apiKey\`, which it then requires (INVALID_ARGUMENT), like a valid \`fromEmail\`. The \`apiKey\` is stored encrypted. Result: the config after the write.`,
  data: z
    .object({
      useEmailService: z.boolean().optional(),
      emailServiceConfig: z
        .object({
          type: ZEmailServiceType.optional(),
          apiKey: z.string().max(4096).optional(),
          fromEmail: z.string().max(320).optional(),
          fromCompany: z.string().max(256).optional(),
          triggers: z.record(z.string().min(1).max(256), z.boolean()).optional(),
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
});
