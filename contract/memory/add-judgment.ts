import { z } from 'zod';
import { ZId } from '../access/schemas.js';
import { operation, resultOf } from '../common/envelope.js';
import { ZDecision, ZJudgment } from './schemas.js';
import { MOVE_HIRES, MOVE_HIRES_REQUEST } from './examples.js';

export const MAX_SUBJECT_LENGTH = 2000;
export const MAX_REASON_LENGTH = 2000;
export const MAX_TAGS = 20;
export const MAX_TAG_LENGTH = 64;
/** How far ahead of the server's clock `decidedAt` may be: clocks of callers drift. */
export const DECIDED_AT_FUTURE_SLACK_MS = 60_000;
/** 9999-12-31T23:59:59.999Z: the contract's bound; the service refuses anything past now + 1 minute. */
export const MAX_TIMESTAMP_MS = 253_402_300_799_999;
/** Judgments one application may hold: Suggest Decision searches them in memory (docs/decisions.md, The search index). */
export const MAX_JUDGMENTS_PER_APPLICATION = 100_000;
/** Distinct words of one judgment that are searchable (the first ones, subject then reason then tags); later ones are not. */
export const MAX_TERMS_PER_JUDGMENT = 256;
/** Searchable words (distinct per judgment) one application's judgments may hold together: the search index's memory and build time. */
export const POSTINGS_BUDGET = 2_000_000;

const notBlank = (value: string) => value.trim() !== '';

/** `documentId` narrows an organization: it means nothing without one. */
export const documentNeedsOrganization: [(d: { organizationId?: string; documentId?: string }) => boolean, { message: string; path: string[] }] = [
  (d) => d.documentId === undefined || d.organizationId !== undefined,
  { message: 'documentId requires organizationId', path: ['documentId'] },
];

export const ZAddJudgmentData = z
  .object({
    judgmentId: ZId.optional().describe('Default: a new ID (`jdg_…`). ALREADY_EXISTS when the application has a judgment with this ID.'),
    subject: z.string().min(1).max(MAX_SUBJECT_LENGTH).refine(notBlank, { message: 'must not be blank' }).describe('What was judged; searched by Suggest Decision.'),
    decision: ZDecision,
    reason: z.string().min(1).max(MAX_REASON_LENGTH).refine(notBlank, { message: 'must not be blank' }).describe('Why; searched, and the source of `topReasons`.'),
    reviewerId: ZId.describe('The user ID of the reviewer.'),
    organizationId: ZId.optional().describe('The organization the judgment belongs to; omitted: the whole workspace. Need not exist.'),
    documentId: ZId.optional().describe('The document within organizationId; requires organizationId. Need not exist.'),
    tags: z.array(z.string().min(1).max(MAX_TAG_LENGTH)).max(MAX_TAGS).optional().describe('Searched like the subject and reason; default none.'),
    decidedAt: z
      .number()
      .int()
      .min(0)
      .max(MAX_TIMESTAMP_MS)
      .optional()
      .describe('When the decision was made, Unix ms (to import history); default now; at most one minute ahead of the server\'s clock.'),
  })
  .strict()
  .refine(...documentNeedsOrganization);
export type TAddJudgmentData = z.infer<typeof ZAddJudgmentData>;

export const addJudgment = operation({
  path: '/v2/memory/judgments/add',
  summary: 'Add Judgment',
  description:
    `Records one past judgment: a reviewer approved or rejected a subject, for a reason, optionally within an organization or one of its documents, with up to ${MAX_TAGS} tags. Judgments are the evidence Suggest Decision draws on; the organization and document need not exist (nothing is created). Result: the stored judgment. INVALID_ARGUMENT for documentId without organizationId or a decidedAt more than a minute in the future; ALREADY_EXISTS for a taken judgmentId; RESOURCE_EXHAUSTED when the application already holds ${MAX_JUDGMENTS_PER_APPLICATION} judgments, or when this judgment's distinct words would take the application's judgments past ${POSTINGS_BUDGET} searchable words (each judgment counts its distinct words, at most ${MAX_TERMS_PER_JUDGMENT}: only the first ${MAX_TERMS_PER_JUDGMENT}, in subject, reason, tags order, are searchable).`,
  data: ZAddJudgmentData,
  result: resultOf(ZJudgment),
  example: {
    data: MOVE_HIRES_REQUEST,
    result: {
      status: 'success',
      message: 'Judgment added.',
      data: MOVE_HIRES,
    },
  },
});
