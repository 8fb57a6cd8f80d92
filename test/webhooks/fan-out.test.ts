// Every domain event becomes one message in the transaction of its change, and
// is fanned out to the enabled endpoints whose filterTypes and channels match.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../../sdk/index.js';
import { usingPostgres } from '../helpers/database.js';
import { eventually } from '../helpers/eventually.js';
import { startReceiver } from '../helpers/receiver.js';
import type { WorkspaceCredentials } from '../helpers/server.js';
import { addThreads, createEndpoint, deliveriesOf, idOf, verifyDelivery } from '../helpers/webhooks.js';
import { startWebhookServer, type WebhookTestServer } from '../helpers/webhook-server.js';

let server: WebhookTestServer;
beforeAll(async () => {
  server = await startWebhookServer({ WEBHOOK_POLL_INTERVAL_MS: '50' });
});
afterAll(() => server?.close());

const db = () => server.running.database.db;
const apiKeyIdOf = async (ws: WorkspaceCredentials) =>
  (await db().apiKey.findFirstOrThrow({ where: { workspaceId: ws.workspaceId }, select: { id: true } })).id;

/** Waits until no delivery of the application is pending (each got its answer), running due ones meanwhile. */
async function settled(apiKeyId: string): Promise<void> {
  await eventually(async () => {
    await server.running.services.webhookDispatcher.runDue();
    return (await db().webhookDelivery.count({ where: { apiKeyId, state: 'pending' } })) === 0;
  }, 'every delivery answered');
}

async function app(): Promise<{ ws: WorkspaceCredentials; client: Client; apiKeyId: string }> {
  const { ws, client } = await server.webhookApp();
  return { ws, client, apiKeyId: await apiKeyIdOf(ws) };
}

const ok = () => startReceiver((_req, res) => res.writeHead(204).end());

describe('one message per domain event', () => {
  it('writes exactly one message for each event the application produced, whatever the endpoints', async () => {
    const { client, apiKeyId } = await app();
    const receiver = await ok();
    const endpoint = await createEndpoint(client, { url: receiver.url });
    await addThreads(client, 'org-m', 'doc-m', 3, 'm');
    await client.comments.addComments({ organizationId: 'org-m', documentId: 'doc-m', annotationId: 'm-0', commentData: [{ commentText: 'reply', from: { userId: 'r' } }] });
    await client.comments.updateCommentAnnotations({
      organizationId: 'org-m',
      documentId: 'doc-m',
      annotationIds: ['m-1'],
      updatedData: { status: 'resolved' },
      actionUser: { userId: 'r' },
    });
    await settled(apiKeyId);

    const events = await db().domainEvent.findMany({ where: { apiKeyId }, select: { id: true, type: true } });
    const messages = await db().webhookMessage.findMany({ where: { apiKeyId }, select: { id: true, eventId: true, eventType: true } });
    expect(events.length).toBeGreaterThanOrEqual(5);
    // One message per event, carrying its type; none without an event.
    expect(messages.map((m) => m.eventId).sort()).toEqual(events.map((e) => e.id).sort());
    for (const message of messages) expect(message.eventType).toBe(events.find((e) => e.id === message.eventId)!.type);

    // An endpoint without filters gets every message once, under the message's ID.
    expect(receiver.received.map(idOf).sort()).toEqual(messages.map((m) => m.id).sort());
    const types = receiver.received.map((r) => verifyDelivery(endpoint.secret, r).event as string);
    expect(types).toEqual(expect.arrayContaining(['comment_annotation.add', 'comment.add', 'comment_annotation.status_change']));
  });

  it('sends nothing for a change that rolls back after publishing its event (services directly)', async () => {
    const { ws, client, apiKeyId } = await app();
    const receiver = await ok();
    await createEndpoint(client, { url: receiver.url });
    const { services, database } = server.running;
    await expect(
      database.uow.run(async () => {
        await services.events.publish({
          type: 'comment_annotation.delete',
          apiKeyId,
          organizationId: 'org-r',
          documentId: 'doc-r',
          payload: {
            annotation: {
              annotationId: 'gone',
              organizationId: 'org-r',
              documentId: 'doc-r',
              status: 'open',
              priority: null,
              assignedTo: null,
              customList: [],
              context: null,
              from: { userId: 'u' },
              comments: [],
              createdAt: 1,
              lastUpdated: 1,
            },
          },
        });
        // The message and its delivery were written in this transaction…
        expect(await db().webhookMessage.count({ where: { apiKeyId } })).toBe(1);
        expect(await db().webhookDelivery.count({ where: { apiKeyId } })).toBe(1);
        throw new Error('the change fails after its event');
      }),
    ).rejects.toThrow('the change fails after its event');
    // …and went with it.
    expect(await db().webhookMessage.count({ where: { apiKeyId } })).toBe(0);
    expect(await db().webhookDelivery.count({ where: { apiKeyId } })).toBe(0);
    await server.running.services.webhookDispatcher.runDue();

    // A later change still goes out, and is the only thing the receiver ever got.
    await addThreads(server.client(ws), 'org-r', 'doc-r', 1, 'after');
    await settled(apiKeyId);
    expect(receiver.received).toHaveLength(1);
    expect(JSON.parse(receiver.received[0]!.body).data.annotation.annotationId).toBe('after-0');
  });

  it('sends nothing for an operation that publishes an event and then fails (Add Comment Annotations, second thread refused)', async () => {
    const { client, apiKeyId } = await app();
    const receiver = await ok();
    await createEndpoint(client, { url: receiver.url });
    // A real failure inside the operation: the second thread's event row is refused by the database,
    // after the first thread's event wrote its message and delivery.
    const trigger = `refuse_event_${apiKeyId.replace(/[^A-Za-z0-9]/g, '').toLowerCase()}`;
    if (usingPostgres) {
      await db().$executeRawUnsafe(
        `CREATE FUNCTION ${trigger}() RETURNS trigger AS $$ BEGIN IF NEW."body" LIKE '%refused-thread%' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
      );
      await db().$executeRawUnsafe(`CREATE TRIGGER ${trigger} BEFORE INSERT ON "DomainEvent" FOR EACH ROW EXECUTE FUNCTION ${trigger}()`);
    } else {
      await db().$executeRawUnsafe(
        `CREATE TRIGGER ${trigger} BEFORE INSERT ON "DomainEvent" WHEN NEW."body" LIKE '%refused-thread%' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
      );
    }
    const failed = await client.comments
      .addCommentAnnotations({
        organizationId: 'org-f',
        documentId: 'doc-f',
        commentAnnotations: [
          { annotationId: 'accepted-thread', from: { userId: 'u' }, commentData: [{ commentText: 'one' }] },
          { annotationId: 'refused-thread', from: { userId: 'u' }, commentData: [{ commentText: 'two' }] },
        ],
      })
      .then(
        () => 'succeeded',
        (error: { status?: string }) => error.status,
      );
    expect(failed).toBe('INTERNAL');
    expect(await db().webhookMessage.count({ where: { apiKeyId } })).toBe(0);
    expect(await db().webhookDelivery.count({ where: { apiKeyId } })).toBe(0);
    expect(await db().domainEvent.count({ where: { apiKeyId } })).toBe(0);

    await addThreads(client, 'org-f', 'doc-f', 1, 'later');
    await settled(apiKeyId);
    expect(receiver.received.map((r) => JSON.parse(r.body).data.annotation.annotationId)).toEqual(['later-0']);
  });

  it('writes no message while advanced webhooks are disabled, and delivers again once they are enabled', async () => {
    const { client, apiKeyId } = await app();
    const receiver = await ok();
    await createEndpoint(client, { url: receiver.url });
    await client.webhooks.updateAdvancedWebhookConfig({ isEnabled: false });
    await addThreads(client, 'org-d', 'doc-d', 2, 'off');
    expect(await db().domainEvent.count({ where: { apiKeyId } })).toBe(2);
    expect(await db().webhookMessage.count({ where: { apiKeyId } })).toBe(0);

    await client.webhooks.updateAdvancedWebhookConfig({ isEnabled: true });
    await addThreads(client, 'org-d', 'doc-d', 1, 'on');
    await settled(apiKeyId);
    expect(receiver.received.map((r) => JSON.parse(r.body).data.annotation.annotationId)).toEqual(['on-0']);
  });
});

describe('fan-out', () => {
  it('delivers each event to the endpoints whose filterTypes and channels match (absent means all)', async () => {
    const { client, apiKeyId } = await app();
    const receivers = {
      all: await ok(),
      addsOnly: await ok(),
      statusOnly: await ok(),
      org1: await ok(),
      doc2: await ok(),
      otherDoc: await ok(),
      org1Adds: await ok(),
      custom: await ok(),
    };
    const endpoints = {
      all: await createEndpoint(client, { url: receivers.all.url }),
      addsOnly: await createEndpoint(client, { url: receivers.addsOnly.url, filterTypes: ['comment_annotation.add'] }),
      statusOnly: await createEndpoint(client, { url: receivers.statusOnly.url, filterTypes: ['comment_annotation.status_change'] }),
      org1: await createEndpoint(client, { url: receivers.org1.url, channels: ['org:org1'] }),
      doc2: await createEndpoint(client, { url: receivers.doc2.url, channels: ['doc:org2/doc2'] }),
      otherDoc: await createEndpoint(client, { url: receivers.otherDoc.url, channels: ['doc:org1/nowhere', 'org:org3'] }),
      org1Adds: await createEndpoint(client, { url: receivers.org1Adds.url, filterTypes: ['comment_annotation.add'], channels: ['org:org1', 'doc:org2/elsewhere'] }),
      // Custom types are accepted: the endpoint gets the listed types it knows, and would get the custom ones.
      custom: await createEndpoint(client, { url: receivers.custom.url, filterTypes: ['invoice.paid', 'my-app.custom_thing', 'comment.add'] }),
    };
    await addThreads(client, 'org1', 'doc1', 1, 'o1');
    await addThreads(client, 'org2', 'doc2', 1, 'o2');
    await client.comments.addComments({ organizationId: 'org2', documentId: 'doc2', annotationId: 'o2-0', commentData: [{ commentText: 'reply', from: { userId: 'r' } }] });
    await client.comments.updateCommentAnnotations({
      organizationId: 'org1',
      documentId: 'doc1',
      annotationIds: ['o1-0'],
      updatedData: { status: 'resolved' },
      actionUser: { userId: 'r' },
    });
    await settled(apiKeyId);

    const seen = (name: keyof typeof receivers) =>
      receivers[name].received
        .map((r) => {
          const payload = verifyDelivery(endpoints[name].secret, r);
          return `${payload.event}@${payload.metadata.organizationId}/${payload.metadata.documentId}`;
        })
        .sort();
    expect(seen('all')).toEqual(['comment.add@org2/doc2', 'comment_annotation.add@org1/doc1', 'comment_annotation.add@org2/doc2', 'comment_annotation.status_change@org1/doc1']);
    expect(seen('addsOnly')).toEqual(['comment_annotation.add@org1/doc1', 'comment_annotation.add@org2/doc2']);
    expect(seen('statusOnly')).toEqual(['comment_annotation.status_change@org1/doc1']);
    expect(seen('org1')).toEqual(['comment_annotation.add@org1/doc1', 'comment_annotation.status_change@org1/doc1']);
    expect(seen('doc2')).toEqual(['comment.add@org2/doc2', 'comment_annotation.add@org2/doc2']);
    expect(seen('otherDoc')).toEqual([]);
    expect(seen('org1Adds')).toEqual(['comment_annotation.add@org1/doc1']);
    expect(seen('custom')).toEqual(['comment.add@org2/doc2']);
    // No delivery row at all where nothing matched.
    expect(await deliveriesOf(db(), endpoints.otherDoc.id)).toEqual([]);
  });

  it('matches custom filter types exactly (a test event of a custom type reaches the endpoint that lists it)', async () => {
    const { client, apiKeyId } = await app();
    const receiver = await ok();
    const endpoint = await createEndpoint(client, { url: receiver.url, filterTypes: ['my-app.invoice.paid'] });
    const listed = (await client.webhooks.getWebhookEndpoints({ endpointId: endpoint.id })).data[0]!;
    expect(listed.filterTypes).toEqual(['my-app.invoice.paid']);
    await client.webhooks.sendWebhookTestEvent({ endpointId: endpoint.id, eventType: 'my-app.invoice.paid', data: { invoice: 7 } });
    await addThreads(client, 'org-c', 'doc-c', 1, 'c'); // not listed: not delivered
    await settled(apiKeyId);
    expect(receiver.received.map((r) => verifyDelivery(endpoint.secret, r))).toMatchObject([
      { event: 'my-app.invoice.paid', source: 'my-app', actionType: 'paid', data: { invoice: 7 } },
    ]);
  });

  it('gives a disabled endpoint nothing: none of the messages written while it is disabled, and a pending one is canceled', async () => {
    const { client, apiKeyId } = await app();
    const live = await ok();
    const off = await ok();
    let failFirst = true;
    const later = await startReceiver((_req, res) => {
      if (failFirst) {
        failFirst = false;
        res.writeHead(500).end();
      } else res.writeHead(204).end();
    });
    await createEndpoint(client, { url: live.url });
    const disabled = await createEndpoint(client, { url: off.url, disabled: true });
    const disabledLater = await createEndpoint(client, { url: later.url });

    await addThreads(client, 'org-x', 'doc-x', 1, 'x');
    // The first try to `later` fails: its delivery waits 5 s for the next try. Disable it meanwhile.
    await eventually(async () => (await db().webhookAttempt.count({ where: { endpointId: disabledLater.id } })) === 1, 'first try to the endpoint disabled later');
    await client.webhooks.updateWebhookEndpoint({ endpointId: disabledLater.id, disabled: true });
    await addThreads(client, 'org-x', 'doc-x', 1, 'y');

    await settled(apiKeyId);
    expect(live.received).toHaveLength(2);
    expect(off.received).toHaveLength(0);
    expect(await deliveriesOf(db(), disabled.id)).toEqual([]);
    // Only the one failed try; the message it was waiting to retry is canceled, the later one never queued.
    expect(later.received).toHaveLength(1);
    await eventually(async () => {
      await server.running.services.webhookDispatcher.runDue();
      const rows = await deliveriesOf(db(), disabledLater.id);
      return rows.length === 1 && rows[0]!.state === 'canceled';
    }, 'the pending delivery to the disabled endpoint canceled', 15_000);
    expect(later.received).toHaveLength(1);
  });
});
