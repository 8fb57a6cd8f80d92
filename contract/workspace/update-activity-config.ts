import { z } from 'zod';
import { ACTIVITY_TRIGGERS_TEXT } from '../activities/triggers.js';
import { operation, resultOf } from '../common/envelope.js';
import { ZGetActivityConfigResult } from './get-activity-config.js';

/** Trigger names: feature and action keys of the nested map; bounded like IDs, `__proto__` refused (the map is a JSON object). */
const ZTriggerKey = z
  .string()
  .min(1)
  .max(64)
  .regex(/^(?!__proto__$)/, { message: 'must not be "__proto__"' });

export const MAX_TRIGGER_FEATURES = 32;
export const MAX_TRIGGER_ACTIONS = 64;

export const ZActivityTriggersUpdate = z
  .record(
    ZTriggerKey,
    z
      .record(ZTriggerKey, z.boolean())
      .refine((actions) => Object.keys(actions).length <= MAX_TRIGGER_ACTIONS, { message: `at most ${MAX_TRIGGER_ACTIONS} actions per feature` }),
  )
  .refine((features) => Object.keys(features).length <= MAX_TRIGGER_FEATURES, { message: `at most ${MAX_TRIGGER_FEATURES} features` });

export const updateActivityConfig = operation({
  path: '/v2/workspace/activityconfig/update',
  summary: 'Update Activity Config',
  description:
    `Changes the activity-log configuration of the calling application by a partial, deep merge: fields not sent keep their stored values, and \`triggers\` is merged feature by feature and action by action (\`{"triggers": {"comment": {"deleted": false}}}\` turns off one trigger and keeps the others). \`isEnabled\` turns the logging of domain events on; a trigger is on unless set to \`false\`. Triggers used: ${ACTIVITY_TRIGGERS_TEXT}. \`immutable: true\` makes Add, Update and Delete Activities FAILED_PRECONDITION (the service keeps logging). Give at least one field (INVALID_ARGUMENT otherwise). Two concurrent updates both take effect. Result: the config after the write.`,
  data: z
    .object({
      isEnabled: z.boolean().optional(),
      immutable: z.boolean().optional(),
      triggers: ZActivityTriggersUpdate.optional().describe('Feature → action → on/off, e.g. {"comment": {"added": true}}.'),
    })
    .strict()
    .refine((d) => d.isEnabled !== undefined || d.immutable !== undefined || d.triggers !== undefined, {
      message: 'give at least one of isEnabled, immutable, triggers',
      path: ['isEnabled'],
    }),
  result: resultOf(ZGetActivityConfigResult),
  // Logging on, reactions left out; the result is the stored config after the merge.
  example: {
    data: { isEnabled: true, triggers: { reaction: { added: false, deleted: false } } },
    result: {
      status: 'success',
      message: 'Activity config updated successfully.',
      data: { activityServiceConfig: { isEnabled: true, triggers: { reaction: { added: false, deleted: false } } } },
    },
  },
});
