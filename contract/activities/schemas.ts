import { z } from 'zod';
import { named } from '../common/named.js';
import { ZContentMetadata, ZFreeObject, ZTimestampMs, ZUserRef } from '../common/content.js';

export const FEATURE_TYPES = ['comment', 'reaction', 'recorder', 'crdt', 'custom'] as const;
export const ZFeatureType = named('FeatureType', z.enum(FEATURE_TYPES));
export type TFeatureType = z.infer<typeof ZFeatureType>;

export const ZActivity = named(
  'Activity',
  z.object({
    id: z.string(),
    featureType: ZFeatureType,
    actionType: z.string().describe('e.g. `comment.add`.'),
    actionUser: ZUserRef,
    targetEntityId: z.string().describe('e.g. an annotation ID.'),
    displayMessageTemplate: z.string().describe('With `{{variable}}` placeholders.'),
    displayMessageTemplateData: ZFreeObject,
    metadata: ZContentMetadata,
    timestamp: ZTimestampMs,
  }),
);
export type TActivity = z.infer<typeof ZActivity>;
