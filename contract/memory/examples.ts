import type { TAddJudgmentData } from './add-judgment.js';
import type { TJudgment } from './schemas.js';

/** The judgments the examples follow: decisions on the Q3 plan's hiring and launch budget. */

/** Grace's decision as Add Judgment takes it (not widened to the request's optional fields, so that MOVE_HIRES can spread it). */
export const MOVE_HIRES_REQUEST = {
  subject: 'Move two Q3 engineering hires to Q4',
  decision: 'approve',
  reason: 'Keeps Q3 spend inside the frozen hiring budget',
  reviewerId: 'user-grace',
  organizationId: 'org-acme',
  documentId: 'doc-q3-plan',
  tags: ['budget', 'hiring'],
} satisfies TAddJudgmentData;

/** As Add Judgment returns it: decided when recorded. */
export const MOVE_HIRES: TJudgment = {
  judgmentId: 'jdg_01KKY1QMDZEQ5KJ6PD2W7GA54J',
  ...MOVE_HIRES_REQUEST,
  decidedAt: 1773756207551,
  createdAt: 1773756207551,
};

export const DESIGNER_REQUEST_ID = 'jdg-designer-req';

/** An earlier judgment of Grace's, recorded under an ID the caller chose. */
export const DESIGNER_REQUEST: TJudgment = {
  judgmentId: DESIGNER_REQUEST_ID,
  subject: 'Open a Q3 hiring request for a product designer',
  decision: 'reject',
  reason: 'No new headcount before the Q3 revenue review',
  reviewerId: 'user-grace',
  organizationId: 'org-acme',
  documentId: 'doc-q3-plan',
  tags: ['budget', 'hiring'],
  decidedAt: 1771321200000,
  createdAt: 1771321200000,
};

/** Ada's judgment on the launch. */
export const LAUNCH_AGENCY: TJudgment = {
  judgmentId: 'jdg-launch-agency',
  subject: 'Hire an agency for the Q3 launch campaign',
  decision: 'reject',
  reason: 'Hiring budget is frozen until the Q3 revenue review',
  reviewerId: 'user-ada',
  organizationId: 'org-acme',
  documentId: 'doc-q3-plan',
  tags: ['budget', 'launch'],
  decidedAt: 1770116700000,
  createdAt: 1770116700000,
};
