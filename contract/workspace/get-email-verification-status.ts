import { z } from 'zod';
import { operation, resultOf } from '../common/envelope.js';

export const ZGetEmailVerificationStatusData = z
  .object({ ownerEmail: z.string().min(1).describe('The owner email the workspace was created with.') })
  .strict();

export const getEmailVerificationStatus = operation({
  path: '/v2/workspace/email/status',
  summary: 'Get Email Verification Status',
  description:
    'Public (no credentials). Whether the workspace owner email is verified. When it is, API keys that expired for lack of verification are reactivated. NOT_FOUND when no workspace has this email; RESOURCE_EXHAUSTED past the per-IP or per-email rate limit.',
  auth: 'public',
  rateLimit: 'emailStatus',
  data: ZGetEmailVerificationStatusData,
  result: resultOf(z.object({ verified: z.boolean() })),
  example: {
    data: { ownerEmail: 'owner@example.com' },
    result: { status: 'success', message: 'Email verified. The workspace is active and any expired API keys were reactivated.', data: { verified: true } },
  },
});
