// Inbound Workflow Trigger: a third party's raw JSON, signed with the
// trigger's secret, starts a run with the body as triggerContext in the
// definition's scope; forged or missing signatures, ignored events,
// redeliveries, and the body checks every request gets.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../../sdk/index.js';
import { expectCollabError } from '../../helpers/credentials.js';
import { appHeaders, startTestServer, type TestServer, type WorkspaceCredentials } from '../../helpers/server.js';
import { reviewDefinition } from './fixtures.js';

const ORG = 'trig-org';
const DOC = 'trig-doc';
let server: TestServer;
let a: WorkspaceCredentials;
let b: WorkspaceCredentials;
let client: Client;
/** The generated secret of each definition's `ci` trigger. */
const secrets = new Map<string, string>();

const sign = (secret: string, text: string) => `sha256=${createHmac('sha256', secret).update(text, 'utf8').digest('hex')}`;
const path = (definitionId: string, query = '') => `/v2/workflow/triggers/inbound/${definitionId}${query}`;

/** A raw POST of `text` as a third party sends it. */
async function deliver(definitionId: string, text: string, headers: Record<string, string>, query = '') {
  return server.post(path(definitionId, query), text, headers);
}

beforeAll(async () => {
  server = await startTestServer();
  a = await server.workspace();
  b = await server.workspace();
  client = server.client(a);
  await server.post('/v2/organizations/add', { data: { organizationId: ORG } }, appHeaders(a));
  await server.post('/v2/organizations/documents/add', { data: { organizationId: ORG, documentId: DOC } }, appHeaders(a));
  const base = reviewDefinition('ci-review', [{ userId: 'u-ana' }]);
  const created = (
    await client.workflowDefinitions.createWorkflowDefinition({
      ...base,
      scope: { level: 'document', organizationId: ORG, documentId: DOC },
      triggers: [{ triggerId: 'ci', eventName: 'CI builds', inboundWebhook: { allowedEvents: ['push', 'workflow_run'] } }],
    })
  ).data;
  secrets.set('ci-review', created.triggers![0]!.inboundWebhook.secret!);
  const byPath = (
    await client.workflowDefinitions.createWorkflowDefinition({
      ...reviewDefinition('by-path', [{ userId: 'u-ana' }]),
      triggers: [{ triggerId: 'ci', inboundWebhook: { secret: 'a-secret-we-chose-ourselves', idempotencyBodyPath: 'event.id' } }],
    })
  ).data;
  expect(byPath.triggers![0]!.inboundWebhook.secret).toBe('__redacted__'); // given, so not shown back
  secrets.set('by-path', 'a-secret-we-chose-ourselves');
  await client.workflowDefinitions.createWorkflowDefinition({
    ...reviewDefinition('two-triggers', [{ userId: 'u-ana' }]),
    triggers: [
      { triggerId: 'first', inboundWebhook: { secret: 'first-secret-0123456789' } },
      { triggerId: 'second', inboundWebhook: { secret: 'second-secret-0123456789' } },
    ],
  });
  await client.workflowDefinitions.createWorkflowDefinition(reviewDefinition('no-trigger', [{ userId: 'u-ana' }]));
});
afterAll(async () => {
  await server?.close();
});

describe('Inbound Workflow Trigger', () => {
  it('starts a run with the body as triggerContext in the definition\'s scope; a redelivery is the same run', async () => {
    const text = JSON.stringify({ type: 'ignored-here', ref: 'refs/heads/main', organizationId: 'not-this-one', nested: { n: 1 } });
    const headers = { 'x-service-api-key': a.apiKey, 'x-workflow-signature': sign(secrets.get('ci-review')!, text), 'x-workflow-event': 'push', 'webhook-id': 'delivery-1' };
    const first = await deliver('ci-review', text, headers);
    expect(first.status).toBe(200);
    expect(first.body.result).toMatchObject({ status: 'success', message: 'Workflow trigger accepted.', data: { accepted: true, deduplicated: false } });
    const { executionId } = first.body.result.data;
    const run = (await client.workflowExecutions.getWorkflowExecution({ executionId })).data;
    expect(run).toMatchObject({ definitionId: 'ci-review', organizationId: ORG, documentId: DOC, idempotencyKey: 'trig:ci-review:ci:delivery-1', triggerContext: JSON.parse(text) });

    const again = await deliver('ci-review', text, headers);
    expect(again.body.result.data).toEqual({ accepted: true, executionId, correlationId: run.correlationId, deduplicated: true });
  });

  it('takes GitHub\'s headers and the API key as a query parameter', async () => {
    const text = '{"action":"completed","workflow_run":{"id":42}}';
    const response = await deliver('ci-review', text, { 'x-hub-signature-256': sign(secrets.get('ci-review')!, text), 'x-github-event': 'workflow_run', 'x-github-delivery': 'gh-77' }, `?apiKey=${encodeURIComponent(a.apiKey)}`);
    expect(response.status).toBe(200);
    const run = (await client.workflowExecutions.getWorkflowExecution({ executionId: response.body.result.data.executionId })).data;
    expect(run).toMatchObject({ idempotencyKey: 'trig:ci-review:ci:gh-77', triggerContext: { action: 'completed', workflow_run: { id: 42 } } });
  });

  it('refuses a forged, a missing or a stale signature as PERMISSION_DENIED, saying only that it does not match', async () => {
    const text = '{"type":"push"}';
    const secret = secrets.get('ci-review')!;
    const cases: Record<string, string>[] = [
      { 'x-workflow-signature': sign('some-other-secret-entirely', text) },
      {},
      { 'x-workflow-signature': sign(secret, `${text} `) }, // signed other bytes than sent
      { 'x-workflow-signature': sign(secret, text).replace('sha256=', 'sha1=') },
      { 'x-workflow-signature': sign(secret, text).slice(7) },
    ];
    for (const signature of cases) {
      const response = await deliver('ci-review', text, { 'x-service-api-key': a.apiKey, 'x-workflow-event': 'push', ...signature });
      expect([response.status, response.body.error]).toEqual([403, { status: 'PERMISSION_DENIED', message: 'signature does not match' }]);
    }
    // The signature is checked over the exact bytes: the same JSON spaced otherwise is another body.
    const spaced = '{ "type": "push" }';
    expect((await deliver('ci-review', spaced, { 'x-service-api-key': a.apiKey, 'x-workflow-signature': sign(secret, text) })).status).toBe(403);
    expect((await deliver('ci-review', spaced, { 'x-service-api-key': a.apiKey, 'x-workflow-signature': sign(secret, spaced).toUpperCase().replace('SHA256=', 'sha256=') })).status).toBe(200);
  });

  it('answers event-ignored (200, no run) for an event not allowed, or without a name', async () => {
    const before = (await client.workflowExecutions.listWorkflowExecutions({ definitionId: 'ci-review' })).data.length;
    for (const [text, event] of [
      ['{"type":"push"}', 'pull_request'],
      ['{"no":"type"}', undefined],
      ['{"type":"release"}', undefined],
    ] as const) {
      const response = await deliver('ci-review', text, { 'x-service-api-key': a.apiKey, 'x-workflow-signature': sign(secrets.get('ci-review')!, text), ...(event === undefined ? {} : { 'x-workflow-event': event }) });
      expect([response.status, response.body.result?.data]).toEqual([200, { accepted: false, reason: 'event-ignored' }]);
    }
    // The body's `type` names the event when no header does.
    const typed = '{"type":"push","id":1}';
    expect((await deliver('ci-review', typed, { 'x-service-api-key': a.apiKey, 'x-workflow-signature': sign(secrets.get('ci-review')!, typed) })).body.result.data.accepted).toBe(true);
    expect((await client.workflowExecutions.listWorkflowExecutions({ definitionId: 'ci-review' })).data.length).toBe(before + 1);
  });

  it('takes the event ID at idempotencyBodyPath, and runs every delivery without one', async () => {
    const signed = (text: string) => ({ 'x-service-api-key': a.apiKey, 'x-workflow-signature': sign(secrets.get('by-path')!, text) });
    const text = '{"event":{"id":"evt-9"},"n":1}';
    const first = (await deliver('by-path', text, signed(text))).body.result.data;
    const second = (await deliver('by-path', '{"event":{"id":"evt-9"},"n":2}', signed('{"event":{"id":"evt-9"},"n":2}'))).body.result.data;
    expect(second).toMatchObject({ executionId: first.executionId, deduplicated: true });
    const bare = '{"n":3}';
    const one = (await deliver('by-path', bare, signed(bare))).body.result.data;
    const two = (await deliver('by-path', bare, signed(bare))).body.result.data;
    expect(one.executionId).not.toBe(two.executionId);
  });

  it('through the SDK, which signs the body it sends', async () => {
    const result = (
      await client.workflowExecutions.inboundWorkflowTrigger({
        params: { definitionId: 'ci-review' },
        query: { triggerId: 'ci' },
        body: { type: 'push', sdk: true },
        headers: { 'webhook-id': 'sdk-1' },
        signingSecret: secrets.get('ci-review')!,
      })
    ).data;
    expect(result).toMatchObject({ accepted: true, deduplicated: false });
  });

  it('picks the trigger: ?triggerId=, or the only one; NOT_FOUND or INVALID_ARGUMENT otherwise', async () => {
    const text = '{"x":1}';
    const headers = (secret: string) => ({ 'x-service-api-key': a.apiKey, 'x-workflow-signature': sign(secret, text) });
    expect((await deliver('two-triggers', text, headers('second-secret-0123456789'), '?triggerId=second')).body.result.data.accepted).toBe(true);
    // Each trigger has its own secret.
    expect((await deliver('two-triggers', text, headers('first-secret-0123456789'), '?triggerId=second')).status).toBe(403);
    const several = await deliver('two-triggers', text, headers('first-secret-0123456789'));
    expect([several.status, several.body.error.status, several.body.error.message]).toEqual([400, 'INVALID_ARGUMENT', 'workflow definition two-triggers has 2 inbound triggers: name one with ?triggerId=']);
    expect((await deliver('two-triggers', text, headers('first-secret-0123456789'), '?triggerId=third')).body.error.status).toBe('NOT_FOUND');
    expect((await deliver('no-trigger', text, headers('first-secret-0123456789'))).body.error.status).toBe('NOT_FOUND');
    expect((await deliver('never-made', text, headers('first-secret-0123456789'))).body.error.status).toBe('NOT_FOUND');
    // Another application's API key names another application: it has no such definition.
    const other = await deliver('ci-review', '{"type":"push"}', { 'x-service-api-key': b.apiKey, 'x-workflow-signature': sign(secrets.get('ci-review')!, '{"type":"push"}') });
    expect(other.body.error.status).toBe('NOT_FOUND');
  });

  it('needs an API key that names an application', async () => {
    const text = '{"type":"push"}';
    const missing = await deliver('ci-review', text, { 'x-workflow-signature': sign(secrets.get('ci-review')!, text) });
    expect([missing.status, missing.body.error.status]).toEqual([401, 'UNAUTHENTICATED']);
    const wrong = await deliver('ci-review', text, { 'x-service-api-key': 'ak_not_a_key_of_anyone', 'x-workflow-signature': sign(secrets.get('ci-review')!, text) });
    expect([wrong.status, wrong.body.error.status]).toEqual([403, 'PERMISSION_DENIED']);
  });

  it('applies the body checks of every request: JSON object, no __proto__, no NUL, at most 1 MB', async () => {
    const signedPost = (definitionId: string, text: string) => deliver(definitionId, text, { 'x-service-api-key': a.apiKey, 'x-workflow-signature': sign(secrets.get(definitionId)!, text) });
    for (const text of ['[1,2]', '{"__proto__":{"x":1}}', '{"a":"\\u0000"}', '{"a":"\\ud800"}', 'not json', `{"big":"${'x'.repeat(1024 * 1024)}"}`]) {
      const response = await signedPost('by-path', text);
      expect([text.slice(0, 20), response.status, response.body.error?.status]).toEqual([text.slice(0, 20), 400, 'INVALID_ARGUMENT']);
    }
    // Within the 1 MB limit but over what a run's triggerContext holds.
    const large = await signedPost('by-path', `{"big":"${'x'.repeat(70_000)}"}`);
    expect([large.status, large.body.error.message]).toEqual([400, 'the body is over 65536 bytes as JSON, the most a run\'s triggerContext holds']);
  });

  it('refuses a tombstoned definition as FAILED_PRECONDITION, once the signature matches', async () => {
    await client.workflowDefinitions.deleteWorkflowDefinition({ definitionId: 'by-path' });
    const text = '{"n":4}';
    const response = await deliver('by-path', text, { 'x-service-api-key': a.apiKey, 'x-workflow-signature': sign(secrets.get('by-path')!, text) });
    expect([response.status, response.body.error.status]).toEqual([400, 'FAILED_PRECONDITION']);
    expect((await deliver('by-path', text, { 'x-service-api-key': a.apiKey, 'x-workflow-signature': sign('wrong-secret-0123456789', text) })).status).toBe(403);
  });
});

describe('Create Workflow Definition with triggers', () => {
  it('refuses a triggerId given twice and a __redacted__ secret nothing stored', async () => {
    const base = reviewDefinition('bad-triggers', [{ userId: 'u-ana' }]);
    await expectCollabError(client.workflowDefinitions.createWorkflowDefinition({ ...base, triggers: [{ triggerId: 't', inboundWebhook: {} }, { triggerId: 't', inboundWebhook: {} }] }), 'INVALID_ARGUMENT', /used twice/);
    await expectCollabError(client.workflowDefinitions.createWorkflowDefinition({ ...base, triggers: [{ triggerId: 't', inboundWebhook: { secret: '__redacted__' } }] }), 'INVALID_ARGUMENT', /no stored secret/);
  });
});
