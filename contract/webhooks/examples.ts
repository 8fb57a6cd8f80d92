import type { TWebhookEndpoint } from './schemas.js';

/** The endpoint the examples follow: Acme's review bot, and the first message it received. */

export const REVIEW_BOT_ENDPOINT_ID = 'ep_01KKV1H6MEX0SABK81PB8D5XBE';
export const FIRST_MESSAGE_ID = 'msg_01KKV298Y3CHMH96FP7GKZ7ARN';

/** As Create Advanced Webhook Endpoint returns it and Get Advanced Webhook Endpoints lists it. */
export const REVIEW_BOT_ENDPOINT: TWebhookEndpoint = {
  id: REVIEW_BOT_ENDPOINT_ID,
  url: 'https://hooks.example.com/collab',
  description: 'Comment events for the Acme review bot',
  filterTypes: ['comment_annotation.add', 'comment.add'],
  channels: ['org:org-acme'],
  disabled: false,
  rateLimit: 50,
  uid: 'acme-review-bot',
  metadata: { team: 'platform', environment: 'production' },
  createdAt: '2026-03-16T10:02:13.518Z',
  updatedAt: '2026-03-16T10:02:13.518Z',
};

/** After Update Advanced Webhook Endpoint added status changes to its event types. */
export const REVIEW_BOT_ENDPOINT_UPDATED: TWebhookEndpoint = {
  ...REVIEW_BOT_ENDPOINT,
  filterTypes: ['comment_annotation.add', 'comment.add', 'comment_annotation.status_change'],
  updatedAt: '2026-03-16T10:07:45.090Z',
};
