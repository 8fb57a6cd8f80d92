import type { TActivity, TFeatureType } from '../../../contract/activities/schemas.js';
import type { ActivityRecord } from './repo.js';

/**
 * A stored record in the contract's shape. `apiKey` comes from the reader
 * (never stored): the caller's key in responses, '' in event payloads, which
 * are stored in the outbox (the webhook layer fills it at delivery).
 */
export function toActivity(row: ActivityRecord, apiKey: string): TActivity {
  return {
    id: row.id,
    featureType: row.featureType as TFeatureType,
    actionType: row.actionType,
    actionUser: row.actionUser,
    targetEntityId: row.targetEntityId,
    displayMessageTemplate: row.template,
    displayMessageTemplateData: row.templateData,
    metadata: { apiKey, organizationId: row.organizationId, ...(row.documentId !== null ? { documentId: row.documentId } : {}) },
    timestamp: Number(row.timestamp),
  };
}
