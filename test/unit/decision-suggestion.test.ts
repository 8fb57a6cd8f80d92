// Suggest Decision's retrieval and scoring on hand-built judgment sets, one
// branch of the formula (docs/decisions.md, Decision memory) at a time, at a fixed time.
import { describe, expect, it } from 'vitest';
import { MAX_TERMS_PER_JUDGMENT } from '../../contract/memory/add-judgment.js';
import { JudgmentIndex, postingsOf, type SearchableJudgment } from '../../server/domains/memory/search-index.js';
import { suggestFromHits, TOP_K, type SuggestScope } from '../../server/domains/memory/suggest.js';

const NOW = Date.UTC(2026, 5, 1);
const DAY = 86_400_000;

let counter = 0;
function judgment(decision: 'approve' | 'reject', overrides: Partial<SearchableJudgment> & { ageDays?: number } = {}): SearchableJudgment {
  const { ageDays = 0, ...rest } = overrides;
  counter += 1;
  return {
    id: `j${String(counter).padStart(4, '0')}`,
    decision,
    subject: 'Renew the vendor contract',
    reason: decision === 'approve' ? 'fits the budget' : 'too expensive',
    reviewerId: `reviewer-${counter}`,
    organizationId: null,
    documentId: null,
    tags: [],
    decidedAt: NOW - ageDays * DAY,
    ...rest,
  };
}
const many = (n: number, decision: 'approve' | 'reject', overrides: Partial<SearchableJudgment> & { ageDays?: number } = {}) =>
  Array.from({ length: n }, () => judgment(decision, overrides));

async function suggest(judgments: SearchableJudgment[], query = 'vendor contract', where: SuggestScope = {}, options: { yieldToLoop?: boolean } = {}) {
  const index = await JudgmentIndex.build(judgments, options);
  return suggestFromHits(index.find(query), where, NOW);
}

/** confidence = share × (1 − e^(−n/5)), three decimals. */
const confidence = (share: number, n: number) => Math.round(share * (1 - Math.exp(-n / 5)) * 1000) / 1000;

describe('no evidence', () => {
  it('is null and null without judgments, without matching ones, and for a query of stop words only', async () => {
    expect(await suggest([])).toEqual({ primary: null, conflict: null });
    expect(await suggest(many(5, 'approve', { subject: 'Office chairs', reason: 'ergonomic' }))).toEqual({ primary: null, conflict: null });
    expect(await suggest(many(5, 'approve'), 'the and of it')).toEqual({ primary: null, conflict: null });
  });
});

describe('unanimous evidence', () => {
  it('recommends the one side with its share times the saturation, and no conflict', async () => {
    const result = await suggest(many(4, 'approve'));
    expect(result).toEqual({
      primary: {
        recommendation: 'approve',
        confidence: 0.551, // 1 × (1 − e^(−4/5))
        basedOn: 4,
        scope: 'workspace',
        scopeLabel: 'all judgments in this workspace',
        topReasons: ['fits the budget'],
        uniqueReviewers: 4,
        caveats: [],
      },
      conflict: null,
    });
    expect(result.primary!.confidence).toBe(confidence(1, 4));
  });

  it('saturates with more judgments but stays within [0, 1]', async () => {
    expect((await suggest(many(20, 'reject'))).primary).toMatchObject({ recommendation: 'reject', confidence: 0.982, basedOn: 20 });
    expect((await suggest(many(TOP_K + 10, 'approve'))).primary).toMatchObject({ confidence: 1, basedOn: TOP_K });
  });

  it('counts reviewers once each', async () => {
    const result = await suggest([...many(3, 'approve', { reviewerId: 'ann' }), ...many(2, 'approve', { reviewerId: 'bob' })]);
    expect(result.primary).toMatchObject({ basedOn: 5, uniqueReviewers: 2 });
  });
});

describe('split evidence', () => {
  it('close (losing share ≥ 0.35): the conflict is the other side, and both warn', async () => {
    const result = await suggest([...many(4, 'approve'), ...many(3, 'reject')]);
    const caveat = 'evidence is split: 4 approve vs 3 reject';
    expect(result.primary).toMatchObject({ recommendation: 'approve', basedOn: 4, confidence: 0.315, caveats: [caveat] });
    expect(result.conflict).toMatchObject({ recommendation: 'reject', basedOn: 3, confidence: 0.193, topReasons: ['too expensive'], caveats: [caveat] });
    expect([result.primary!.confidence, result.conflict!.confidence]).toEqual([confidence(4 / 7, 4), confidence(3 / 7, 3)]);
  });

  it('not close (0.25 ≤ losing share < 0.35): no conflict, but the split caveat', async () => {
    const result = await suggest([...many(5, 'approve'), ...many(2, 'reject')]);
    expect(result.primary).toMatchObject({ recommendation: 'approve', basedOn: 5, confidence: confidence(5 / 7, 5), caveats: ['evidence is split: 5 approve vs 2 reject'] });
    expect(result.conflict).toBeNull();
  });

  it('lopsided (losing share < 0.25): neither conflict nor caveat', async () => {
    const result = await suggest([...many(7, 'approve'), ...many(2, 'reject')]);
    expect(result.primary).toMatchObject({ recommendation: 'approve', confidence: confidence(7 / 9, 7), caveats: [] });
    expect(result.conflict).toBeNull();
  });
});

describe('freshness', () => {
  it('warns when the newest supporting judgment is more than 365 days old', async () => {
    const stale = await suggest([...many(2, 'approve', { ageDays: 400 }), judgment('approve', { ageDays: 500 })]);
    expect(stale.primary!.caveats).toEqual(['newest supporting judgment is 400 days old']);
    // Weights decay alike, so the share (and so the confidence) is unchanged.
    expect(stale.primary!.confidence).toBe(confidence(1, 3));
    expect((await suggest(many(3, 'approve', { ageDays: 365 }))).primary!.caveats).toEqual([]);
  });

  it('treats a decision up to a minute ahead of the clock as made now', async () => {
    const ahead = await suggest([...many(3, 'approve', { decidedAt: NOW + 30_000 }), ...many(3, 'reject')]);
    // Equal weights and counts: the tie goes to reject (below); the future ones did not weigh more.
    expect(ahead.primary!.recommendation).toBe('reject');
  });
});

describe('recency', () => {
  it('beats count: three two-year-old approvals weigh less than two fresh rejections', async () => {
    const result = await suggest([...many(3, 'approve', { ageDays: 720 }), ...many(2, 'reject')]);
    // W_approve = 3 × 0.5^(720/180) = 0.1875, W_reject = 2.
    expect(result.primary).toMatchObject({ recommendation: 'reject', basedOn: 2, confidence: confidence(2 / 2.1875, 2), caveats: [] });
    expect(result.conflict).toBeNull();
  });
});

describe('relevance', () => {
  it('leaves out judgments that share no term with the query', async () => {
    const result = await suggest([...many(3, 'approve'), ...many(5, 'reject', { subject: 'Buy office chairs', reason: 'ergonomic' })]);
    expect(result.primary).toMatchObject({ recommendation: 'approve', basedOn: 3, caveats: [] });
    expect(result.conflict).toBeNull();
  });

  it('weighs a judgment by its relevance relative to the best match', async () => {
    // Approvals match both query terms in the subject; rejections only one, and only in the reason.
    const weak = { subject: 'Quarterly review', reason: 'vendor unknown' };
    const result = await suggest([...many(3, 'approve'), ...many(3, 'reject', weak)]);
    expect(result.primary).toMatchObject({ recommendation: 'approve', basedOn: 3 });
    expect(result.primary!.confidence).toBeGreaterThan(confidence(0.5, 3));
  });

  it('searches tags and weighs only the TOP_K most relevant of the scope', async () => {
    const strong = many(TOP_K, 'approve', { tags: ['procurement'], subject: 'Procurement: vendor contract' });
    const weak = many(10, 'reject', { subject: 'Something else', reason: 'vendor late', tags: [] });
    const result = await suggest([...weak, ...strong], 'procurement vendor contract');
    expect(result.primary).toMatchObject({ recommendation: 'approve', basedOn: TOP_K, caveats: [] });
    expect(result.conflict).toBeNull();
    expect((await suggest(many(3, 'reject', { subject: 'x', reason: 'y', tags: ['Legal-Review'] }), 'legal')).primary).toMatchObject({ basedOn: 3 });
  });
});

describe('scope', () => {
  const inDoc = (n: number, decision: 'approve' | 'reject') => many(n, decision, { organizationId: 'o1', documentId: 'd1' });
  const inOrg = (n: number, decision: 'approve' | 'reject') => many(n, decision, { organizationId: 'o1', documentId: 'd2' });
  const elsewhere = (n: number, decision: 'approve' | 'reject') => many(n, decision, { organizationId: 'o2' });

  it('stays at the document when it has at least 3 relevant judgments', async () => {
    const result = await suggest([...inDoc(3, 'reject'), ...inOrg(5, 'approve'), ...elsewhere(9, 'approve')], 'vendor contract', { organizationId: 'o1', documentId: 'd1' });
    expect(result.primary).toMatchObject({ recommendation: 'reject', scope: 'document', scopeLabel: 'this document', basedOn: 3, caveats: [] });
    expect(result.conflict).toBeNull();
  });

  it('falls back to the organization (its documents and itself), then to the workspace', async () => {
    const set = [...inDoc(2, 'reject'), ...inOrg(1, 'reject'), ...many(1, 'approve', { organizationId: 'o1' }), ...elsewhere(9, 'approve')];
    const org = await suggest(set, 'vendor contract', { organizationId: 'o1', documentId: 'd1' });
    // The organization's 4 (the document's 2, another document's 1, its own 1), not o2's 9 approvals.
    expect(org.primary).toMatchObject({
      recommendation: 'reject',
      scope: 'organization',
      scopeLabel: 'organization o1',
      basedOn: 3,
      caveats: ['evidence is split: 1 approve vs 3 reject'],
    });
    expect(org.conflict).toBeNull();
    const workspace = await suggest([...inDoc(1, 'reject'), ...inOrg(1, 'reject'), ...elsewhere(4, 'approve')], 'vendor contract', { organizationId: 'o1', documentId: 'd1' });
    expect(workspace.primary).toMatchObject({ recommendation: 'approve', scope: 'workspace', scopeLabel: 'all judgments in this workspace', basedOn: 4 });
    // Without a scope asked for, the workspace at once.
    expect((await suggest([...inDoc(3, 'reject'), ...elsewhere(4, 'approve')])).primary).toMatchObject({ scope: 'workspace', recommendation: 'approve' });
  });

  it('counts only relevant judgments towards a scope', async () => {
    const set = [...inDoc(2, 'reject'), ...many(5, 'reject', { organizationId: 'o1', documentId: 'd1', subject: 'Unrelated', reason: 'other' }), ...elsewhere(3, 'approve')];
    expect((await suggest(set, 'vendor contract', { organizationId: 'o1', documentId: 'd1' })).primary).toMatchObject({ scope: 'workspace' });
  });

  it('answers from the workspace with a limited-evidence caveat below 3 relevant judgments there', async () => {
    expect((await suggest(inDoc(2, 'approve'), 'vendor contract', { organizationId: 'o1', documentId: 'd1' })).primary).toMatchObject({
      scope: 'workspace',
      basedOn: 2,
      caveats: ['limited evidence: 2 judgments'],
    });
    expect((await suggest(many(1, 'reject'))).primary!.caveats).toEqual(['limited evidence: 1 judgment']);
  });
});

describe('reasons', () => {
  it('groups reasons ignoring case and spacing, most common first, in their most recent wording, at most 3', async () => {
    const set = [
      judgment('approve', { reason: 'Fits the  budget', ageDays: 10 }),
      judgment('approve', { reason: 'fits the budget ', ageDays: 2 }),
      judgment('approve', { reason: 'FITS THE BUDGET', ageDays: 30 }),
      judgment('approve', { reason: 'Trusted supplier', ageDays: 1 }),
      judgment('approve', { reason: 'trusted supplier', ageDays: 40 }),
      // One each: by weight (the fresher first), then by text.
      judgment('approve', { reason: 'Zeta', ageDays: 0 }),
      judgment('approve', { reason: 'Alpha', ageDays: 0 }),
      judgment('approve', { reason: 'Old reason', ageDays: 300 }),
    ];
    expect((await suggest(set)).primary!.topReasons).toEqual(['fits the budget', 'Trusted supplier', 'Alpha']);
  });
});

describe('ties', () => {
  it('go to the side with more judgments when the weights are equal, then to reject', async () => {
    // One fresh judgment weighs 1; two of exactly one half-life weigh 0.5 each.
    expect((await suggest([judgment('approve'), ...many(2, 'reject', { ageDays: 180 })])).primary).toMatchObject({ recommendation: 'reject', basedOn: 2 });
    expect((await suggest([...many(2, 'approve', { ageDays: 180 }), judgment('reject')])).primary).toMatchObject({ recommendation: 'approve', basedOn: 2 });
    const even = await suggest([...many(3, 'approve'), ...many(3, 'reject')]);
    expect(even.primary).toMatchObject({ recommendation: 'reject', confidence: confidence(0.5, 3), caveats: ['evidence is split: 3 approve vs 3 reject'] });
    expect(even.conflict).toMatchObject({ recommendation: 'approve', confidence: confidence(0.5, 3) });
  });
});

describe('determinism', () => {
  const set = [
    ...many(7, 'approve', { ageDays: 30, subject: 'Vendor contract for cloud hosting', reason: 'cheaper than the alternatives' }),
    ...many(6, 'reject', { ageDays: 90, subject: 'Contract with a new vendor', reason: 'no security review' }),
    ...many(4, 'approve', { ageDays: 400, organizationId: 'o1', subject: 'Vendor renewal', reason: 'worked well' }),
    ...many(3, 'reject', { ageDays: 5, organizationId: 'o1', documentId: 'd1', subject: 'Contract', reason: 'legal said no', tags: ['vendor'] }),
  ];

  it('gives the same answer twice, and whatever order the judgments are indexed in', async () => {
    for (const where of [{}, { organizationId: 'o1' }, { organizationId: 'o1', documentId: 'd1' }]) {
      const first = await suggest(set, 'vendor contract hosting', where);
      expect(first.primary).not.toBeNull();
      expect(await suggest(set, 'vendor contract hosting', where)).toEqual(first);
      expect(await suggest([...set].reverse(), 'vendor contract hosting', where)).toEqual(first);
      const shuffled = [...set].sort((a, b) => (a.reviewerId.length % 3) - (b.reviewerId.length % 3) || (a.id < b.id ? 1 : -1));
      expect(await suggest(shuffled, 'vendor contract hosting', where, { yieldToLoop: true })).toEqual(first);
    }
  });
});

describe('hostile names', () => {
  it('keeps __proto__ and other object keys as ordinary reviewer, organization and reason values', async () => {
    const set = [
      judgment('approve', { reviewerId: '__proto__', organizationId: '__proto__', reason: '__proto__' }),
      judgment('approve', { reviewerId: 'constructor', organizationId: '__proto__', reason: 'constructor' }),
      judgment('approve', { reviewerId: '__proto__', organizationId: '__proto__', reason: '__proto__' }),
    ];
    const result = await suggest(set, 'vendor contract', { organizationId: '__proto__' });
    expect(result.primary).toEqual({
      recommendation: 'approve',
      confidence: confidence(1, 3),
      basedOn: 3,
      scope: 'organization',
      scopeLabel: 'organization __proto__',
      topReasons: ['__proto__', 'constructor'],
      uniqueReviewers: 2,
      caveats: [],
    });
  });
});

describe('words per judgment', () => {
  it('indexes the first 256 distinct words in subject, reason, tags order; later new words are not searchable, repeats still count', async () => {
    const subject = Array.from({ length: 250 }, (_, i) => `s${i}`).join(' ');
    const reason = `${Array.from({ length: 10 }, (_, i) => `r${i}`).join(' ')} s0 s0`;
    const wordy = judgment('approve', { subject, reason, tags: ['lasttag'] });
    expect(postingsOf(wordy)).toBe(MAX_TERMS_PER_JUDGMENT);
    const index = await JudgmentIndex.build([wordy, judgment('reject')]);
    expect(index.postingCount).toBe(MAX_TERMS_PER_JUDGMENT + 5); // renew, vendor, contract, too, expensive
    for (const word of ['s0', 's249', 'r0', 'r5']) expect(index.find(word).map((hit) => hit.judgment.id)).toEqual([wordy.id]);
    for (const word of ['r6', 'r9', 'lasttag']) expect(index.find(word)).toEqual([]);
    // s0 appears again in the reason: counted there (tf 2), so it scores above s1, which only the subject has.
    expect(index.find('s0')[0]!.score).toBeGreaterThan(index.find('s1')[0]!.score);
  });
});
