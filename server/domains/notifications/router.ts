import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract/index.js';
import { applicationOf } from '../../http/context.js';
import { ok, paged } from '../../http/respond.js';
import type { NotificationsService } from './service.js';

export function notificationsRouter(service: NotificationsService) {
  const getConfig = async ({ req, body }: { req: Parameters<typeof applicationOf>[0]; body: { data: Parameters<NotificationsService['getNotificationConfig']>[1] } }) =>
    ok('Notification config retrieved successfully.', await service.getNotificationConfig(applicationOf(req), body.data));
  return initServer().router(contract.notifications, {
    getNotifications: async ({ req, body }) => paged('Notifications retrieved successfully.', await service.getNotifications(applicationOf(req), body.data)),
    getNotificationConfig: getConfig,
    getNotificationConfigV2: getConfig,
    setNotificationConfig: async ({ req, body }) => ok('Notification config set.', await service.setNotificationConfig(applicationOf(req), body.data)),
    addNotification: async ({ req, body }) => ok('Notification added.', await service.addNotification(applicationOf(req), body.data)),
    updateNotifications: async ({ req, body }) => ok('Notifications updated.', await service.updateNotifications(applicationOf(req), body.data)),
    deleteNotifications: async ({ req, body }) => ok('Notifications deleted.', await service.deleteNotifications(applicationOf(req), body.data)),
  });
}
