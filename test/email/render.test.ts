// The content of a notification email, and the redaction of credentials
// from the errors a send keeps: pure functions, no server.
import { describe, expect, it } from 'vitest';
import type { TCommentAnnotation } from '../../contract/comments/schemas.js';
import { renderEmail } from '../../server/domains/email/render.js';
import { redact } from '../../server/domains/email/sender.js';
import type { DomainEvent } from '../../server/platform/events.js';

const annotation = (extra: Partial<TCommentAnnotation> = {}): TCommentAnnotation => ({
  annotationId: 'a1',
  organizationId: 'org <1>',
  documentId: 'doc&2',
  status: 'open',
  priority: null,
  assignedTo: null,
  customList: [],
  context: null,
  from: { userId: 'ann', name: 'Ann' },
  comments: [],
  createdAt: 1,
  lastUpdated: 1,
  ...extra,
});

function event<T extends DomainEvent['type']>(type: T, payload: unknown, actor: DomainEvent['actor']): DomainEvent<any> {
  return { id: 'evt_1', type, apiKeyId: 'app', organizationId: 'org', documentId: 'doc', actor, occurredAt: 1, payload } as DomainEvent<any>;
}

describe('renderEmail', () => {
  it('fills the headline variables, keeps the subject one line, and escapes everything in the HTML', () => {
    const status = 'done\r\nBcc: victim@example.com <script>';
    const email = renderEmail(event('comment_annotation.status_change', { annotation: annotation(), previousStatus: 'open', status }, { userId: 'u<1>' }), {
      userId: 'cat',
      name: 'Cat',
    });
    // The actor has no name: their user ID stands in.
    expect(email.subject).toBe('u<1> changed the status to done Bcc: victim@example.com <script>');
    expect(email.subject).not.toMatch(/[\r\n]/);
    expect(email.text).toBe('u<1> changed the status to done Bcc: victim@example.com <script>\n\nDocument doc&2 in organization org <1>\n');
    expect(email.html).toContain('<strong>u&lt;1&gt; changed the status to done Bcc: victim@example.com &lt;script&gt;</strong>');
    expect(email.html).toContain('Document doc&amp;2 in organization org &lt;1&gt;');
    expect(email.html).not.toContain('<script>');
  });

  it('quotes the comment, cut when very long; a name that looks like a variable stays as it is', () => {
    const text = `${'x'.repeat(10_000)}tail`;
    const comment = { commentId: 'c1', commentText: text, from: { userId: 'ann', name: '{recipientUser}' }, taggedUserContacts: [], createdAt: 1, lastUpdated: 1, reactions: [] };
    const email = renderEmail(event('comment.add', { annotation: annotation({ comments: [comment] }), comment }, null), { userId: 'cat', name: 'Cat' });
    // No actor on the event: the comment's author acted.
    expect(email.subject).toBe('{recipientUser} commented');
    expect(email.text).toContain(`${'x'.repeat(9_999)}…`);
    expect(email.text).not.toContain('tail');
  });
});

describe('renderEmail of a workflow notification', () => {
  it('takes the headline as it is (no variables), on one line, escaped in the HTML, and names the step', () => {
    const payload = {
      workflow: { executionId: 'wfx_1', definitionId: 'launch', stepId: 'step_notify_1', nodeId: 'notify', kind: 'notification' },
      headline: 'Approved {recipientUser}\r\nBcc: victim@example.com <b>',
      body: 'Line one\n<script>alert(1)</script>',
      users: [],
      recipients: ['lead@example.com'],
    };
    const email = renderEmail(event('workflow.notification', payload, null), { userId: 'lead@example.com', name: '' });
    expect(email.subject).toBe('Approved {recipientUser} Bcc: victim@example.com <b>');
    expect(email.text).toBe('Approved {recipientUser} Bcc: victim@example.com <b>\n\nLine one\n<script>alert(1)</script>\n\nWorkflow launch, execution wfx_1, step step_notify_1 (notify)\nDocument doc in organization org\n');
    expect(email.html).toContain('<strong>Approved {recipientUser} Bcc: victim@example.com &lt;b&gt;</strong>');
    expect(email.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(email.html).not.toContain('<script>');
    // An execution without a document or organization: the step alone.
    const bare = renderEmail({ ...event('workflow.notification', { ...payload, body: null }, null), organizationId: null, documentId: null }, { userId: 'x', name: '' });
    expect(bare.text).toBe('Approved {recipientUser} Bcc: victim@example.com <b>\n\nWorkflow launch, execution wfx_1, step step_notify_1 (notify)\n');
  });
});

describe('redact', () => {
  it('takes out each secret as it is, URL-encoded and base64-encoded, and the AUTH PLAIN form', () => {
    const pass = 'p@ss/word+123456';
    const plain = Buffer.from(`\0mailer\0${pass}`).toString('base64');
    const message = `535 ${pass} ${encodeURIComponent(pass)} ${Buffer.from(pass).toString('base64')} AUTH PLAIN ${plain}`;
    const out = redact(message, [pass], { user: 'mailer', pass });
    expect(out).toBe('535 [redacted] [redacted] [redacted] AUTH PLAIN [redacted]');
  });

  it('keeps an error short', () => {
    expect(redact('x'.repeat(1000), [])).toHaveLength(301);
  });
});
