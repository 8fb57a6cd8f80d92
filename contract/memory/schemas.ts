import { z } from 'zod';
import { named } from '../common/named.js';
import { ZTimestampMs } from '../common/content.js';

/** Shapes of decision memory: recorded judgments and the suggestions drawn from them. */

export const ZDecision = named('Decision', z.enum(['approve', 'reject']).describe('What the reviewer decided.'));
export type TDecision = z.infer<typeof ZDecision>;

/** A recorded judgment, as Add Judgment returns it and Get Judgments lists it. */
export const ZJudgment = named(
  'Judgment',
  z.object({
    judgmentId: z.string(),
    subject: z.string().describe('What was judged.'),
    decision: ZDecision,
    reason: z.string(),
    reviewerId: z.string().describe('The user ID of the reviewer.'),
    organizationId: z.string().nullable().describe('null: a judgment of the whole workspace.'),
    documentId: z.string().nullable(),
    tags: z.array(z.string()),
    decidedAt: ZTimestampMs.describe('When the decision was made (Unix ms).'),
    createdAt: ZTimestampMs.describe('When it was recorded (Unix ms).'),
  }),
);
export type TJudgment = z.infer<typeof ZJudgment>;

export const ZSuggestionScope = z.enum(['document', 'organization', 'workspace']);
export type TSuggestionScope = z.infer<typeof ZSuggestionScope>;

/** The Suggestion resource of the specification. */
const suggestion = z.object({
  recommendation: ZDecision,
  confidence: z.number().min(0).max(1).describe('In [0, 1], three decimals: the side\'s weighted share times an evidence-saturation factor (docs/decisions.md in the repository).'),
  basedOn: z.number().int().describe('Judgments on this side among those used.'),
  scope: ZSuggestionScope.describe('Where the evidence came from: the narrowest scope with enough relevant judgments.'),
  scopeLabel: z.string().describe('The scope in words, e.g. `this document`.'),
  topReasons: z.array(z.string()).describe('The most common reasons on this side, at most 3.'),
  uniqueReviewers: z.number().int().describe('Distinct reviewers on this side.'),
  caveats: z.array(z.string()).describe('Conflict, freshness and limited-evidence warnings.'),
});
export type TSuggestion = z.infer<typeof suggestion>;

/** Both members of Suggest Decision's result may be null (OpenAPI 3.0 names the nullable form on its own). */
export const ZSuggestionOrNull = named('SuggestionOrNull', suggestion.nullable());
