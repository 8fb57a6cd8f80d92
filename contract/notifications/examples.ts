import { ADA, GRACE, Q3_PLAN_METADATA } from '../access/examples.js';
import type { TNotification } from './schemas.js';

/** The notifications the examples follow: Ada's asks reach Grace, who has not read them yet. */

/** The recipients of a notification sent to Grace alone, unread. */
export const TO_GRACE_UNREAD: Pick<TNotification, 'notifyUsers' | 'notifyUsersByUserId' | 'readByUserIds'> = {
  notifyUsers: { 'grace@example.com': true },
  notifyUsersByUserId: { 'user-grace': true },
  readByUserIds: {},
};

export const REVIEW_REQUEST_ID = 'ntf_01KKC2K2ZTNWPYPXXF1ESJN20Z';

/** Ada's custom notification (Add Notification), as Get Notifications lists it for Grace. */
export const REVIEW_REQUEST: TNotification = {
  id: REVIEW_REQUEST_ID,
  notificationSource: 'custom',
  notificationSourceData: { section: 'budget' },
  actionUser: ADA,
  displayBodyMessage: 'Can you check the hiring numbers before Friday?',
  displayHeadlineMessageTemplate: '{actionUser} asked {recipientUser} to review {section}',
  displayHeadlineMessageTemplateData: { section: 'the Q3 budget', actionUser: ADA, recipientUser: GRACE },
  metadata: Q3_PLAN_METADATA,
  ...TO_GRACE_UNREAD,
  timestamp: 1773153127418,
};
