import { ADA, Q3_PLAN_METADATA } from '../access/examples.js';
import type { TNewActivity } from './add-activities.js';
import type { TActivity } from './schemas.js';

/** The activity record the examples follow: Ada exported the Q3 plan as PDF. */

export const EXPORT_ACTIVITY_ID = 'act_01KKE6AA210E4E3PTCVA8CY2Z2';

/** What the caller gives and the record keeps as given. */
const EXPORT: Omit<TActivity, 'id' | 'metadata' | 'timestamp'> = {
  featureType: 'custom',
  actionType: 'document.export',
  actionUser: ADA,
  targetEntityId: 'doc-q3-plan',
  displayMessageTemplate: '{{actionUser.name}} exported {{documentName}} as {{format}}',
  displayMessageTemplateData: { actionUser: { name: 'Ada Lovelace' }, documentName: 'Q3 Plan', format: 'PDF' },
};

/** As Add Activities takes it. */
export const NEW_EXPORT_ACTIVITY: TNewActivity = { documentId: 'doc-q3-plan', ...EXPORT };

/** As Add Activities returns it and Get Activity Logs lists it. */
export const EXPORT_ACTIVITY: TActivity = { id: EXPORT_ACTIVITY_ID, ...EXPORT, metadata: Q3_PLAN_METADATA, timestamp: 1773224142913 };
