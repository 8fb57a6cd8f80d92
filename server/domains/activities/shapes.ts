import type { TActivity, TFeatureType } from '../../../contract/activities/schemas.js';
import type { TUserRef } from '../../../contract/common/content.js';
import type { ActivityRow } from './repo.js';

/** The calling application: its ID scopes every query, its key is `metadata.apiKey` of what it reads. */
export interface Caller {
  apiKeyId: string;
  apiKey: string;
}

/**
 * A stored record in the contract's shape. `apiKey` comes from the reader
 * (never stored): the caller's key in responses, '' in event payloads, which
 * are stored in the outbox (the webhook layer fills it at delivery).
 */
export function toActivity(row: ActivityRow, apiKey: string): TActivity {
  return {
    id: row.id,
    featureType: row.featureType as TFeatureType,
    actionType: row.actionType,
    actionUser: JSON.parse(row.actionUser) as TUserRef,
    targetEntityId: row.targetEntityId,
    displayMessageTemplate: row.template,
    displayMessageTemplateData: JSON.parse(row.templateData) as Record<string, unknown>,
    metadata: { apiKey, organizationId: row.organizationId, ...(row.documentId !== null ? { documentId: row.documentId } : {}) },
    timestamp: Number(row.timestamp),
  };
}

/** A user as stored in a record: only the fields given, in a fixed order. */
export function userJson(user: TUserRef): string {
  return JSON.stringify({ userId: user.userId, ...(user.name !== undefined ? { name: user.name } : {}), ...(user.email !== undefined ? { email: user.email } : {}) });
}
