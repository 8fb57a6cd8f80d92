import { operation, resultOf, ZNoParams } from '../common/envelope.js';
import { EXAMPLE_EMAIL_CONFIG, ZEmailConfig } from './schemas.js';

export const getEmailConfig = operation({
  path: '/v2/workspace/emailconfig/get',
  summary: 'Get Email Config',
  description:
    'The email notification configuration of the calling application (see Update Email Config). Never configured: `useEmailService: false`, type `default`, empty strings and no triggers. The provider `apiKey` is never returned in clear: `****` and its last 4 characters (`****` alone for a key shorter than 16), empty when unset. An invalid API key or auth token gives PERMISSION_DENIED.',
  data: ZNoParams,
  result: resultOf(ZEmailConfig),
  example: { data: {}, result: { status: 'success', message: 'Email config retrieved successfully.', data: EXAMPLE_EMAIL_CONFIG } },
});
