import { z } from 'zod';
import { operation, resultOf, ZNoParams } from '../common/envelope.js';
import { ZActivityServiceConfig } from './schemas.js';

export const ZGetActivityConfigResult = z.object({ activityServiceConfig: ZActivityServiceConfig });
export type TGetActivityConfigResult = z.infer<typeof ZGetActivityConfigResult>;

export const getActivityConfig = operation({
  path: '/v2/workspace/activityconfig/get',
  summary: 'Get Activity Config',
  description:
    'The activity-log configuration of the calling application. A workspace that never configured activity logs reads `{isEnabled: false}`. An invalid API key or auth token gives PERMISSION_DENIED.',
  data: ZNoParams,
  result: resultOf(ZGetActivityConfigResult),
  example: {
    data: {},
    result: { status: 'success', message: 'Activity config retrieved successfully.', data: { activityServiceConfig: { isEnabled: true } } },
  },
});
