/**
 * The benchmark's judgments and queries (see memory.ts): a deterministic mix
 * of subjects, reasons, tags, reviewers, scopes and times over three years.
 */
import type { JudgmentRecord } from '../../server/domains/memory/repo.js';
import { judgmentRecord } from '../../server/domains/memory/shapes.js';

export const JUDGMENTS = 50_000;
const DAY = 86_400_000;
/** When the seeded history ends; it spans three years before that. */
const SEED_END = Date.UTC(2026, 0, 1);

/** A small deterministic PRNG (mulberry32), so every run seeds the same judgments. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ACTIONS = [
  'Renew', 'Publish', 'Merge', 'Deploy', 'Purchase', 'Hire for', 'Refund', 'Escalate', 'Archive', 'Translate', 'Redesign', 'Migrate',
  'Extend', 'Cancel', 'Upgrade', 'Sign', 'Release', 'Rotate', 'Expense', 'Outsource', 'Localize', 'Sunset', 'Pilot', 'Audit',
  'Replace', 'Discount', 'Reprioritize', 'Open-source', 'Approve budget for', 'Freeze',
];
const OBJECTS = [
  'the hosting vendor contract', 'the pricing page', 'the pull request for checkout', 'the database migration', 'the security patch',
  'the travel expense report', 'the laptop order', 'the press release', 'the API key', 'the onboarding flow', 'the logo refresh',
  'the support ticket backlog', 'the customer refund', 'the data export', 'the analytics dashboard', 'the legal review', 'the feature flag',
  'the release notes', 'the marketing campaign', 'the mobile app build', 'the SSO integration', 'the CDN configuration', 'the invoice',
  'the partner agreement', 'the job offer', 'the conference sponsorship', 'the design system tokens', 'the search ranking change',
  'the email template', 'the backup policy', 'the GDPR request', 'the penetration test', 'the office lease', 'the cloud credits',
  'the payment provider switch', 'the translation memory', 'the accessibility audit', 'the beta program', 'the rate limit increase',
  'the churn survey', 'the SLA exception', 'the webhook retry policy', 'the Kubernetes upgrade', 'the license renewal',
  'the bug bounty payout', 'the holiday schedule', 'the roadmap slide', 'the customer case study', 'the dependency bump', 'the domain purchase',
];
const QUALIFIERS = [
  '', '', '', 'for the EU region', 'for Q3', 'before the launch', 'for the mobile app', 'for enterprise customers', 'for the Berlin office',
  'for the free tier', 'ahead of the audit', 'for the partner portal', 'after the outage', 'for next quarter', 'for the APAC team',
  'with the new vendor', 'for the holiday sale', 'under the new policy', 'for the public API', 'for internal tools',
];
const APPROVE_REASONS = [
  'Cheaper than the alternatives', 'Legal signed off', 'Within the approved budget', 'Security review passed', 'Customer asked for it twice',
  'Low risk, easy to roll back', 'Matches the roadmap', 'Tests are green and reviewed', 'Vendor has a good track record', 'Required for compliance',
  'Saves the team a week of work', 'Finance approved the spend', 'Unblocks the launch', 'Same as last year, no issues', 'Data stays in the EU',
  'Performance improved in the benchmark', 'Accessibility checks pass', 'Contract terms are standard', 'Small change, well scoped',
  'Requested by the account manager',
];
const REJECT_REASONS = [
  'Too expensive', 'No security review yet', 'Over budget for the quarter', 'Legal has open concerns', 'Breaks backwards compatibility',
  'Vendor missed the last two deadlines', 'Duplicate of an existing request', 'Not aligned with the roadmap', 'Missing tests',
  'Data would leave the EU', 'Needs sign-off from finance', 'Risk of downtime during peak season', 'Contract has an auto-renewal trap',
  'Unclear owner', 'Accessibility issues found', 'Performance regression in the benchmark', 'Waiting for the audit results',
  'Customer impact not assessed', 'Too many open incidents', 'Policy does not allow it',
];
const TAGS = [
  'procurement', 'security', 'legal', 'finance', 'marketing', 'engineering', 'hr', 'compliance', 'gdpr', 'infrastructure', 'design',
  'support', 'sales', 'partnerships', 'mobile', 'web', 'api', 'billing', 'travel', 'hiring', 'urgent', 'q3', 'eu', 'apac', 'vendor',
];

/** The judgments of the benchmark workspace, as Add Judgment would store them. */
export function benchJudgments(apiKeyId: string, count = JUDGMENTS): JudgmentRecord[] {
  const next = random(0x5eed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const judgments: JudgmentRecord[] = [];
  for (let i = 0; i < count; i++) {
    const action = pick(ACTIONS);
    const object = pick(OBJECTS);
    const qualifier = pick(QUALIFIERS);
    // Each (action, object) leans one way, so the evidence is mostly consistent but not unanimous.
    const lean = (ACTIONS.indexOf(action) * 31 + OBJECTS.indexOf(object) * 17) % 10;
    const decision = next() * 10 < 3 + lean * 0.5 ? 'approve' : 'reject';
    const reason = pick(decision === 'approve' ? APPROVE_REASONS : REJECT_REASONS);
    const tags = Array.from({ length: Math.floor(next() * 4) }, () => pick(TAGS));
    const org = Math.floor(next() * 25);
    const scoped = next() < 0.8;
    const documentId = scoped && next() < 0.6 ? `bench-doc-${org}-${Math.floor(next() * 40)}` : undefined;
    const decidedAt = SEED_END - Math.floor(next() * 3 * 365 * DAY);
    judgments.push(
      judgmentRecord(
        apiKeyId,
        `jdg_bench${String(i).padStart(6, '0')}`,
        {
          subject: `${action} ${object}${qualifier ? ` ${qualifier}` : ''}`,
          decision,
          reason: next() < 0.1 ? `${reason.toLowerCase()} (see ticket ${Math.floor(next() * 9000) + 1000})` : reason,
          reviewerId: `bench-reviewer-${Math.floor(next() * 300)}`,
          ...(scoped ? { organizationId: `bench-org-${org}` } : {}),
          ...(documentId ? { documentId } : {}),
          tags: [...new Set(tags)],
          decidedAt,
        },
        decidedAt + 1000,
      ),
    );
  }
  return judgments;
}

/** Requests autocannon cycles through: different wordings and scopes. */
export function benchQueries(): { query: string; organizationId?: string; documentId?: string }[] {
  const next = random(0x9e7);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const wordings = [
    (a: string, o: string) => `Should we ${a.toLowerCase()} ${o}?`,
    (a: string, o: string) => `${a} ${o}`,
    (_a: string, o: string) => `${o.replace(/^the /, '')} request`,
    (a: string, o: string, q: string) => `Can we ${a.toLowerCase()} ${o} ${q}`,
  ];
  return Array.from({ length: 64 }, (_, i) => {
    const org = Math.floor(next() * 25);
    const scope = i % 3 === 0 ? {} : i % 3 === 1 ? { organizationId: `bench-org-${org}` } : { organizationId: `bench-org-${org}`, documentId: `bench-doc-${org}-${Math.floor(next() * 40)}` };
    return { query: pick(wordings)(pick(ACTIONS), pick(OBJECTS), pick(QUALIFIERS)).trim(), ...scope };
  });
}
