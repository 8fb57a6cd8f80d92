import { z } from 'zod';
import { operation, resultOf, ZNoParams } from '../common/envelope.js';
import { ZAdvancedWebhookConfig } from './schemas.js';

export const getAdvancedWebhookConfig = operation({
  path: '/v2/workspace/advancedwebhookconfig/get',
  summary: 'Get Advanced Webhook Config',
  description: 'Whether advanced webhooks are enabled for the calling application. Never configured: `isEnabled: false`. An invalid API key or auth token gives PERMISSION_DENIED.',
  data: ZNoParams,
  result: resultOf(ZAdvancedWebhookConfig),
  example: { data: {}, result: { status: 'success', message: 'Advanced webhook config retrieved successfully.', data: { isEnabled: true } } },
});

export const updateAdvancedWebhookConfig = operation({
  path: '/v2/workspace/advancedwebhookconfig/update',
  summary: 'Update Advanced Webhook Config',
  description:
    'Enables or disables advanced webhooks for the calling application. While enabled, every event becomes a message delivered to the matching enabled endpoints; while disabled, no message is created and endpoint creation fails with FAILED_PRECONDITION (messages already created are still delivered). `isEnabled` is required (INVALID_ARGUMENT without it). Result: the config after the write.',
  data: z.object({ isEnabled: z.boolean() }).strict(),
  result: resultOf(ZAdvancedWebhookConfig),
  example: { data: { isEnabled: true }, result: { status: 'success', message: 'Advanced webhook config updated successfully.', data: { isEnabled: true } } },
});
