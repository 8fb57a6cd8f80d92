// The activity projection: domain events become activity records in the
// event's own transaction when the activity config logs them. Events are
// published here the way the comments and recordings domains publish them
// (inside a unit of work, payloads as contract/events.ts defines them).
import { EXAMPLE_EXECUTION, type TAgentExecution } from '../../../contract/agents/executions.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ACTIVITY_TRIGGERS, PROJECTED_EVENT_TYPES, type ProjectedEventType } from '../../../contract/activities/triggers.js';
import type { TComment, TCommentAnnotation, TReaction } from '../../../contract/comments/schemas.js';
import type { EventPayload, EventType } from '../../../contract/events.js';
import type { TRecording } from '../../../contract/recordings/schemas.js';
import { testClock } from '../../../server/lib/clock.js';
import type { Client } from '../../../sdk/index.js';
import { startTestServer, type TestServer, type WorkspaceCredentials, putRawSetting } from '../../helpers/server.js';

const ORG = 'p-org';
const DOC = 'p-doc';
const T0 = Date.UTC(2026, 4, 1);
const clock = testClock(T0);
let server: TestServer;
let ws: WorkspaceCredentials;
let client: Client;
let appId: string;

const ada = { userId: 'ada', name: 'Ada', email: 'ada@example.com' };
const bob = { userId: 'bob', name: 'Bob' };
const reaction: TReaction = { reactionId: 'r1', icon: 'thumbs_up', from: bob, createdAt: T0 };
const comment: TComment = { commentId: 'c1', commentText: 'Looks good', from: bob, taggedUserContacts: [ada], createdAt: T0, lastUpdated: T0, reactions: [reaction] };
const annotation: TCommentAnnotation = {
  annotationId: 'ann-1',
  organizationId: ORG,
  documentId: DOC,
  status: 'open',
  priority: null,
  assignedTo: null,
  customList: [],
  context: null,
  from: ada,
  comments: [comment],
  createdAt: T0,
  lastUpdated: T0,
};
const recording: TRecording = {
  type: 'recorder',
  annotationId: 'rec-1',
  recordingType: 'screen',
  mode: 'floating',
  metadata: { apiKey: '', organizationId: ORG, documentId: DOC },
  recordedTime: { duration: 83_000, display: '00:01:23' },
  displayName: 'Demo',
  from: bob,
  attachments: [],
  latestVersion: 1,
  createdAt: T0,
};

/** The contract's example run, on this test's document at its time. */
const execution: TAgentExecution = {
  ...EXAMPLE_EXECUTION,
  id: 'aex-1',
  metadata: { organizationId: ORG, documentId: DOC },
  config: { ...EXAMPLE_EXECUTION.config, seedUrl: 'https://www.example.com/' },
  startedAt: T0,
  completedAt: T0,
  durationMs: 0,
};

/** A valid payload of every event type the projection handles. */
const PAYLOADS: { [T in ProjectedEventType]: EventPayload<T> } = {
  'comment_annotation.add': { annotation },
  'comment_annotation.status_change': { annotation, previousStatus: 'open', status: 'resolved' },
  'comment_annotation.assign': { annotation, previousAssignee: null, assignedTo: bob },
  'comment_annotation.priority_change': { annotation, previousPriority: null, priority: 'high' },
  'comment_annotation.delete': { annotation },
  'comment.add': { annotation, comment },
  'comment.update': { annotation, comment, previousCommentText: 'Looks bad' },
  'comment.delete': { annotation, comment },
  'comment.reaction_add': { annotation, comment, reaction },
  'comment.reaction_delete': { annotation, comment, reaction },
  'recorder.done': { recording },
  'crdt.update_data': { editorId: 'ann-1', type: 'text', contentKey: 'content', lastUpdated: T0, updatedBy: ada },
  'agent.execution.started': { execution: { ...execution, status: 'running', completedAt: null, durationMs: null } },
  'agent.execution.completed': { execution },
};

async function publish<T extends EventType>(type: T, payload: EventPayload<T>, actor: { userId: string; name?: string } | null = ada) {
  const { uow } = server.running.database;
  return uow.run(() =>
    server.running.services.events.publish({ type, apiKeyId: appId, organizationId: ORG, documentId: DOC, ...(actor ? { actor } : {}), payload }),
  );
}

const logs = async () => (await client.activities.getActivityLogs({ organizationId: ORG, order: 'asc' })).data;
const setConfig = (value: unknown) => putRawSetting(server, appId, 'activity', value);

beforeAll(async () => {
  server = await startTestServer({}, { overrides: { clock } });
  ws = await server.workspace();
  client = server.client(ws);
  appId = (await server.cli<{ apiKey: { id: string } }>('workspace', 'get', '--api-key', ws.apiKey)).apiKey.id;
  await client.organizations.addOrganization({ organizationId: ORG });
  await client.organizations.addDocument({ organizationId: ORG, documentId: DOC });
});
afterAll(() => server?.close());
beforeEach(async () => {
  await server.running.database.db.activity.deleteMany({});
  await setConfig({ isEnabled: true });
  clock.advance(1000);
});

describe('the activity projection', () => {
  it('logs every event type but activity.add as its feature, with the event as action type and the thread or recording as target', async () => {
    expect([...PROJECTED_EVENT_TYPES].sort()).toEqual(Object.keys(PAYLOADS).sort());
    for (const type of PROJECTED_EVENT_TYPES) await publish(type, PAYLOADS[type] as never);
    const records = await logs();
    expect(records.map((r) => [r.actionType, r.featureType, r.targetEntityId])).toEqual(
      PROJECTED_EVENT_TYPES.map((type) => [type, ACTIVITY_TRIGGERS[type][0], type === 'recorder.done' ? 'rec-1' : type.startsWith('agent.') ? 'aex-1' : 'ann-1']),
    );
    expect(new Set(records.map((r) => r.featureType))).toEqual(new Set(['comment', 'reaction', 'recorder', 'crdt', 'custom']));
    for (const r of records) {
      expect(r.actionUser).toEqual(ada);
      expect(r.metadata).toEqual({ apiKey: ws.apiKey, organizationId: ORG, documentId: DOC });
      expect(r.timestamp).toBe(clock.nowMs());
      expect(r.id).toMatch(/^act_/);
      // Every placeholder of the template has a value in the data.
      for (const [, path] of r.displayMessageTemplate.matchAll(/\{\{([^}]+)\}\}/g)) {
        const value = path!.split('.').reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], r.displayMessageTemplateData);
        expect({ type: r.actionType, path, value: typeof value }).toEqual({ type: r.actionType, path, value: 'string' });
      }
    }
  });

  it('logs a saved editor change by its user, and no record for a REST write (no user)', async () => {
    await publish('crdt.update_data', PAYLOADS['crdt.update_data']);
    await publish('crdt.update_data', { ...PAYLOADS['crdt.update_data'], updatedBy: null }, null);
    const records = await logs();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      featureType: 'crdt',
      actionType: 'crdt.update_data',
      targetEntityId: 'ann-1',
      displayMessageTemplate: '{{actionUser.name}} edited {{editorId}}',
      displayMessageTemplateData: { actionUser: ada, editorId: 'ann-1', type: 'text' },
    });
  });

  it('writes templates with {{variable}} data', async () => {
    await publish('comment_annotation.status_change', PAYLOADS['comment_annotation.status_change']);
    await publish('comment.reaction_add', PAYLOADS['comment.reaction_add'], bob);
    await publish('comment_annotation.assign', PAYLOADS['comment_annotation.assign']);
    await publish('recorder.done', PAYLOADS['recorder.done'], bob);
    const [status, reacted, assigned, recorded] = await logs();
    expect(status).toMatchObject({
      displayMessageTemplate: '{{actionUser.name}} changed the status of a comment thread from {{previousStatus}} to {{status}}',
      displayMessageTemplateData: { actionUser: ada, previousStatus: 'open', status: 'resolved' },
    });
    expect(reacted).toMatchObject({
      actionUser: bob,
      displayMessageTemplate: '{{actionUser.name}} reacted {{icon}} to a comment',
      displayMessageTemplateData: { actionUser: bob, commentId: 'c1', reactionId: 'r1', icon: 'thumbs_up' },
    });
    // Other users by ID only: erasing them leaves no name of theirs in someone else's record.
    expect(assigned!.displayMessageTemplateData).toEqual({ actionUser: ada, assignedTo: { userId: 'bob' } });
    expect(recorded).toMatchObject({ displayMessageTemplateData: { actionUser: bob, recordingType: 'screen', duration: '00:01:23' } });
  });

  it('takes the acting user from the payload when the event names none, and the user ID as name when none is given', async () => {
    await publish('comment.add', PAYLOADS['comment.add'], null);
    await publish('comment_annotation.add', { annotation: { ...annotation, from: { userId: 'nameless' } } }, null);
    const [commented, opened] = await logs();
    expect(commented!.actionUser).toEqual(bob);
    expect(opened!.actionUser).toEqual({ userId: 'nameless' });
    expect(opened!.displayMessageTemplateData).toEqual({ actionUser: { userId: 'nameless', name: 'nameless' } });
  });

  it('logs nothing while activity logging is disabled or never configured', async () => {
    await setConfig({ isEnabled: false, triggers: { comment: { added: true } } });
    await publish('comment.add', PAYLOADS['comment.add']);
    await server.running.database.db.setting.deleteMany({ where: { apiKeyId: appId, kind: 'activity' } });
    await publish('comment.add', PAYLOADS['comment.add']);
    expect(await logs()).toEqual([]);
  });

  it('skips an event whose trigger is false; absent triggers are on', async () => {
    await client.workspace.updateActivityConfig({ isEnabled: true, triggers: { comment: { added: false, statusChanged: true }, recorder: { done: false } } });
    for (const type of PROJECTED_EVENT_TYPES) await publish(type, PAYLOADS[type] as never);
    expect((await logs()).map((r) => r.actionType)).toEqual(PROJECTED_EVENT_TYPES.filter((t) => t !== 'comment.add' && t !== 'recorder.done'));
  });

  it('keeps logging when the log is immutable (only API writes are refused)', async () => {
    await client.workspace.updateActivityConfig({ isEnabled: true, immutable: true });
    await publish('comment.add', PAYLOADS['comment.add']);
    expect(await logs()).toHaveLength(1);
  });

  it('does not log activity.add (records added through the API are not logged twice) and publishes nothing itself', async () => {
    const { db } = server.running.database;
    await db.domainEvent.deleteMany({});
    const added = await client.activities.addActivities({
      organizationId: ORG,
      activities: [{ featureType: 'custom', actionType: 'custom.x', actionUser: ada, targetEntityId: 't', displayMessageTemplate: 'x' }],
    });
    expect((await logs()).map((r) => r.id)).toEqual(added.data.map((a) => a.id));
    await publish('comment.add', PAYLOADS['comment.add']);
    expect((await db.domainEvent.findMany({ orderBy: { occurredAt: 'asc' } })).map((e) => e.type)).toEqual(['activity.add', 'comment.add']);
    expect(await logs()).toHaveLength(2);
  });

  it('writes in the event\'s transaction: a change that rolls back leaves no record', async () => {
    const { uow } = server.running.database;
    await expect(
      uow.run(async () => {
        await server.running.services.events.publish({ type: 'comment.add', apiKeyId: appId, organizationId: ORG, documentId: DOC, actor: ada, payload: PAYLOADS['comment.add'] });
        throw new Error('the comment write failed after publishing');
      }),
    ).rejects.toThrow('the comment write failed');
    expect(await logs()).toEqual([]);
  });

  it('a recording added through the API is logged through recorder.done', async () => {
    const { data } = await client.recordings.addRecording({
      organizationId: ORG,
      documentId: DOC,
      recordingType: 'audio',
      mode: 'thread',
      recordedTime: { duration: 5_000 },
      displayName: 'Voice note',
      attachments: [],
      from: bob,
    });
    const [logged] = await logs();
    expect(logged).toMatchObject({
      featureType: 'recorder',
      actionType: 'recorder.done',
      targetEntityId: data.annotationId,
      actionUser: bob,
      displayMessageTemplateData: { recordingType: 'audio', duration: '00:00:05' },
    });
  });
});
