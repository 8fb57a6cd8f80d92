// Approval workflows' messages on the email channel: a human step's review
// request and a notification step's rendered message go out through the same
// send job and provider as comment emails (the provider mocked with msw), to
// the users named by their email config and to the addresses a notification
// node lists; the `workflow.notification` trigger (on unless set to false)
// switches them, and the inbox is unchanged.
import { randomBytes } from 'node:crypto';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Client } from '../../sdk/index.js';
import { expectCollabError } from '../helpers/credentials.js';
import { usingPostgres } from '../helpers/database.js';
import { recordSecret } from '../helpers/log-capture.js';
import { appHeaders, startTestServer, type TestServer } from '../helpers/server.js';

const BASE = 'https://email-provider.test';
const KEY = `SG.${randomBytes(11).toString('base64url')}.${randomBytes(32).toString('base64url')}`;
const ORG = 'wf-mail-org';
const DOC = 'plan';

interface Sent {
  to: string;
  subject: string;
  text: string;
  html: string;
}
const sent: Sent[] = [];

const provider = setupServer(
  http.post(`${BASE}/v3/mail/send`, async ({ request }) => {
    const body = (await request.json()) as { personalizations: { to: { email: string }[] }[]; subject: string; content: { type: string; value: string }[] };
    sent.push({
      to: body.personalizations[0]!.to[0]!.email,
      subject: body.subject,
      text: body.content.find((c) => c.type === 'text/plain')!.value,
      html: body.content.find((c) => c.type === 'text/html')!.value,
    });
    return new HttpResponse(null, { status: 202 });
  }),
);

let server: TestServer;
let client: Client;
/** Until none is due: the lanes drain side by side, so an email a workflow step enqueues may wait for the next pass. */
async function runJobs() {
  while ((await server.running.services.jobs.runDue()) > 0);
}
const recipients = () => sent.map((mail) => mail.to).sort();

/** A review by Ana (mandatory), Bo and Cy; on approve, a message to Ana and two addresses (one of them Ana's, in capitals). */
const definition = {
  definitionId: 'launch-review',
  name: 'Launch review',
  nodes: [
    { nodeId: 'review', type: 'human' as const, config: { reviewers: [{ userId: 'ana', mandatory: true }, { userId: 'bo' }, { userId: 'cy' }], commentBody: 'Check the <pricing> table & the dates' } },
    {
      nodeId: 'announce',
      type: 'notification' as const,
      config: {
        channel: 'email' as const,
        userIds: ['ana'],
        recipients: ['lead@acme.dev', 'ANA@example.com'],
        subjectTemplate: 'Approved: {{execution.triggerContext.title}}',
        bodyTemplate: 'Decision {{input.decision}} on {{execution.triggerContext.title}}',
      },
    },
    { nodeId: 'rejected', type: 'notification' as const, config: { userIds: ['ana'], bodyTemplate: 'Rejected' } },
  ],
  edges: [
    { from: 'review', to: 'announce', on: 'approve' as const },
    { from: 'review', to: 'rejected', on: 'reject' as const },
  ],
};

async function dispatch(title: string): Promise<{ executionId: string; reviewStepId: string }> {
  const { executionId } = (await client.workflowExecutions.dispatchWorkflowExecution({ definitionId: 'launch-review', organizationId: ORG, documentId: DOC, triggerContext: { title } })).data;
  await runJobs();
  const execution = (await client.workflowExecutions.getWorkflowExecution({ executionId })).data;
  return { executionId, reviewStepId: execution.steps[0]!.stepId };
}

async function approve(executionId: string, stepId: string) {
  await client.workflowSteps.recordWorkflowReviewerDecision({ executionId, stepId, reviewerId: 'ana', decision: 'approve' });
  await runJobs();
}

const inboxHas = async (userId: string, text: string) =>
  (await client.notifications.getNotifications({ organizationId: ORG, userId })).data.some((n) => JSON.stringify(n).includes(text));

beforeAll(async () => {
  recordSecret('provider key', KEY);
  provider.listen({ onUnhandledRequest: 'bypass' });
  server = await startTestServer({ EMAIL_PROVIDER_BASE_URL: BASE });
  const workspace = await server.workspace();
  client = server.client(workspace);
  await server.post('/v2/organizations/add', { data: { organizationId: ORG } }, appHeaders(workspace));
  await server.post('/v2/organizations/documents/add', { data: { organizationId: ORG, documentId: DOC } }, appHeaders(workspace));
  await client.users.addUsers({
    organizationId: ORG,
    users: [
      { userId: 'ana', name: 'Ana', email: 'ana@example.com' },
      { userId: 'bo', name: 'Bo', email: 'bo@example.com' },
      // No address: nothing to send to.
      { userId: 'cy', name: 'Cy' },
      { userId: 'dee', name: 'Dee', email: 'dee@example.com' },
    ],
  });
  // Ana alone may read the closed document.
  await client.organizations.addDocument({ organizationId: ORG, documentId: 'closed', accessType: 'restricted' });
  await client.users.addUsers({ organizationId: ORG, documentId: 'closed', users: [{ userId: 'ana' }] });
  // Bo wants no email, and still his inbox.
  await client.notifications.setNotificationConfig({ organizationId: ORG, userIds: ['bo'], config: { email: 'NONE' } });
  await client.workspace.updateEmailConfig({
    useEmailService: true,
    emailServiceConfig: { type: 'thirdparty', apiKey: KEY, fromEmail: 'team@example.com', fromCompany: 'Example Inc.' },
  });
  await client.workflowDefinitions.createWorkflowDefinition(definition);
});
afterAll(async () => {
  provider.close();
  await server?.close();
});
beforeEach(() => {
  sent.length = 0;
});

describe(`workflow notifications by email (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('emails the reviewers of a human step by their email config; the inbox is as before', async () => {
    const { executionId, reviewStepId } = await dispatch('Spring launch');
    // Bo's email config is NONE, Cy has no address: Ana alone gets an email.
    expect(recipients()).toEqual(['ana@example.com']);
    const [mail] = sent;
    expect(mail!.subject).toBe('Review requested: Launch review');
    expect(mail!.text).toBe(
      [
        'Review requested: Launch review',
        '',
        'Check the <pricing> table & the dates',
        '',
        `Workflow launch-review, execution ${executionId}, step ${reviewStepId} (review)`,
        `Document ${DOC} in organization ${ORG}`,
        '',
      ].join('\n'),
    );
    expect(mail!.html).toContain('<blockquote style="white-space: pre-wrap">Check the &lt;pricing&gt; table &amp; the dates</blockquote>');
    // The inbox rule is unchanged: Bo's inbox still hears of it.
    expect(await inboxHas('ana', 'Review requested')).toBe(true);
    expect(await inboxHas('bo', 'Review requested')).toBe(true);

    // The send jobs are the comment emails' own, one per recipient.
    const jobs = await server.running.database.db.job.findMany({ where: { kind: 'email.send' } });
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ state: 'completed', attempts: 1 });
    await approve(executionId, reviewStepId);
  });

  it("emails a notification step's rendered message to its users and addresses, once per address", async () => {
    const { executionId, reviewStepId } = await dispatch('Summer launch');
    sent.length = 0;
    await approve(executionId, reviewStepId);
    // ANA@example.com is Ana's address: one email, not two.
    expect(recipients()).toEqual(['ana@example.com', 'lead@acme.dev']);
    for (const mail of sent) {
      expect(mail.subject).toBe('Approved: Summer launch');
      expect(mail.text).toContain('\n\nDecision approve on Summer launch\n\n');
    }
    const done = (await client.workflowExecutions.getWorkflowExecution({ executionId })).data;
    expect(done.status).toBe('completed');
    // `reached` stays the users whose inbox got it.
    expect(done.steps[1]).toMatchObject({ nodeId: 'announce', status: 'completed', output: { subject: 'Approved: Summer launch', reached: ['ana'] } });
  });

  it('sends nothing once the workflow.notification trigger is false, and again once it is true; the inbox goes on', async () => {
    await client.workspace.updateEmailConfig({ emailServiceConfig: { triggers: { 'workflow.notification': false } } });
    const { executionId, reviewStepId } = await dispatch('Autumn launch');
    await approve(executionId, reviewStepId);
    expect(sent).toEqual([]);
    expect(await inboxHas('ana', 'Approved: Autumn launch')).toBe(true);

    await client.workspace.updateEmailConfig({ emailServiceConfig: { triggers: { 'workflow.notification': true } } });
    await dispatch('Winter launch');
    expect(recipients()).toEqual(['ana@example.com']);
  });

  it('leaves out a reviewer who cannot read the document, as the inbox does', async () => {
    await client.workflowDefinitions.createWorkflowDefinition({
      ...definition,
      definitionId: 'closed-review',
      nodes: [{ nodeId: 'review', type: 'human', config: { reviewers: [{ userId: 'ana', mandatory: true }, { userId: 'dee' }] } }, ...definition.nodes.slice(1)],
    });
    await client.workflowExecutions.dispatchWorkflowExecution({ definitionId: 'closed-review', organizationId: ORG, documentId: 'closed' });
    await runJobs();
    expect(recipients()).toEqual(['ana@example.com']);
    expect(await inboxHas('dee', 'Review requested')).toBe(false);
  });

  it('a notification node with addresses only needs no organization', async () => {
    await client.workflowDefinitions.createWorkflowDefinition({
      definitionId: 'ping-lead',
      name: 'Ping the lead',
      nodes: [{ nodeId: 'ping', type: 'notification', config: { recipients: ['lead@acme.dev'], bodyTemplate: 'Run {{execution.executionId}}' } }],
    });
    const { executionId } = (await client.workflowExecutions.dispatchWorkflowExecution({ definitionId: 'ping-lead' })).data;
    await runJobs();
    expect(sent).toEqual([{ to: 'lead@acme.dev', subject: 'Ping the lead', text: `Ping the lead\n\nRun ${executionId}\n\nWorkflow ping-lead, execution ${executionId}, step ${(await client.workflowExecutions.getWorkflowExecution({ executionId })).data.steps[0]!.stepId} (ping)\n`, html: expect.any(String) }]);
    expect((await client.workflowExecutions.getWorkflowExecution({ executionId })).data).toMatchObject({ status: 'completed', steps: [{ status: 'completed', output: { reached: [] } }] });
  });

  it('refuses a notification node with neither userIds nor recipients, and an address that is not one', async () => {
    const base = { definitionId: 'nobody', name: 'Nobody', nodes: [{ nodeId: 'ping', type: 'notification' as const, config: { bodyTemplate: 'x' } }] };
    await expectCollabError(client.workflowDefinitions.createWorkflowDefinition(base), 'INVALID_ARGUMENT', /notification-needs-recipients/);
    await expectCollabError(
      client.workflowDefinitions.createWorkflowDefinition({ ...base, nodes: [{ ...base.nodes[0]!, config: { recipients: ['lead@acme.dev\r\nBcc: x@y.z'], bodyTemplate: 'x' } }] }),
      'INVALID_ARGUMENT',
      /recipients/,
    );
  });
});
