import { z } from 'zod';
import { ZId } from '../access/schemas.js';
import { operation } from '../common/envelope.js';
import { documentNeedsOrganization } from './add-judgment.js';
import { ZSuggestionOrNull } from './schemas.js';

export const MAX_QUERY_LENGTH = 2000;

export const ZSuggestDecisionData = z
  .object({
    query: z
      .string()
      .min(1)
      .max(MAX_QUERY_LENGTH)
      .refine((value) => value.trim() !== '', { message: 'must not be blank' })
      .describe('The decision to make, in words; matched against the subject, reason and tags of past judgments.'),
    organizationId: ZId.optional().describe('Prefer this organization\'s precedent.'),
    documentId: ZId.optional().describe('Prefer this document\'s precedent; requires organizationId.'),
  })
  .strict()
  .refine(...documentNeedsOrganization);

export const suggestDecision = operation({
  path: '/v2/memory/suggest',
  summary: 'Suggest Decision',
  description: [
    'Recommends approve or reject from the past judgments most relevant to `query` (full-text BM25 over subject, reason and tags), within the narrowest scope that holds at least 3 relevant ones: the document, then the organization, then the whole workspace.',
    'Each of the 50 most relevant judgments of that scope weighs its relevance times a recency decay (half-life 180 days); the heavier side is `primary`, and the other side is `conflict` when its share of the weight is at least 0.35 (else null). Both are null when no judgment matches.',
    'Unlike other operations, `result` is `{primary, conflict}` without `status` or `message`. The same judgments and query give the same answer. The exact formula is in docs/decisions.md of the repository. INVALID_ARGUMENT for a blank query or documentId without organizationId.',
  ].join(' '),
  data: ZSuggestDecisionData,
  result: z.object({
    result: z.object({
      primary: ZSuggestionOrNull.describe('The best-grounded recommendation; null without relevant judgments.'),
      conflict: ZSuggestionOrNull.describe('The opposing recommendation when the evidence is split closely; else null.'),
    }),
  }),
  example: {
    data: { query: 'Hire a contractor to help with the Q3 launch', organizationId: 'org-acme', documentId: 'doc-q3-plan' },
    result: {
      primary: {
        recommendation: 'reject',
        confidence: 0.358,
        basedOn: 3,
        scope: 'document',
        scopeLabel: 'this document',
        topReasons: ['Hiring budget is frozen until the Q3 revenue review', 'No new headcount before the Q3 revenue review'],
        uniqueReviewers: 2,
        caveats: [],
      },
      conflict: null,
    },
  },
});
