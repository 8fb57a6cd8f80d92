import type { Redis as RedisExtension } from '@hocuspocus/extension-redis';
import { OutgoingMessage, type Document } from '@hocuspocus/server';
import * as decoding from 'lib0/decoding';
import type { Logger } from 'pino';

/** Hocuspocus's sync message type, and y-protocols' step 2 (the answer carrying the updates the asker lacks). */
const SYNC_MESSAGE = 0;
const SYNC_STEP_2 = 1;

/**
 * How long a REST operation waits for the other processes' answers. A process
 * that holds the document answers within a Redis round trip; one that does
 * not answer (stopping, or unloading the document at that moment) must not
 * hold the operation up for longer than this.
 */
const ANSWER_TIMEOUT_MS = 1000;

/** Reads `<identifier length><identifier><documentName><type><sync type>` of a message on a document's channel; null when it is not a sync step 2. */
function syncStep2Of(data: Buffer): { identifier: string; documentName: string } | null {
  try {
    const length = data[0] ?? 0;
    const identifier = data.toString('utf8', 1, length + 1);
    const decoder = decoding.createDecoder(data.subarray(length + 1));
    const documentName = decoding.readVarString(decoder);
    if (decoding.readVarUint(decoder) !== SYNC_MESSAGE || decoding.readVarUint(decoder) !== SYNC_STEP_2) return null;
    return { identifier, documentName };
  } catch {
    return null;
  }
}

/**
 * Brings this process's copy of a document up to date with every other
 * process that has it loaded, before a REST operation reads or changes it.
 *
 * The Redis extension syncs processes by exchanging state vectors after each
 * change and after a load, and does not wait for the answers. A document a
 * REST operation has just loaded therefore holds only the stored state, and
 * one loaded earlier may lack an edit another process acknowledged a moment
 * ago: a Get would miss text a client typed on another process, and a Delete
 * would leave it in place. Here the operation publishes its state vector on
 * the document's channel itself, learns from PUBLISH how many processes are
 * subscribed (those with the document loaded, this one included), and waits
 * until each of the others has answered with the updates this copy lacks.
 */
export function createPeerSync(redis: RedisExtension, log: Logger) {
  const waiting = new Map<string, Set<(identifier: string) => void>>();

  // Registered after the extension's own listener, which applies a message synchronously when it arrives:
  // by the time this one sees an answer, its updates are in the document.
  redis.sub.on('messageBuffer', (_channel: Buffer, data: Buffer) => {
    const answer = syncStep2Of(data);
    if (!answer || answer.identifier === redis.configuration.identifier) return;
    waiting.get(answer.documentName)?.forEach((answered) => answered(answer.identifier));
  });

  return {
    /** Resolves once every other process holding the document has sent what this copy lacks (or after ANSWER_TIMEOUT_MS). */
    async catchUp(document: Document): Promise<void> {
      const name = document.name;
      const answered = new Set<string>();
      let expected = Number.POSITIVE_INFINITY;
      let done!: () => void;
      const complete = new Promise<void>((resolve) => (done = resolve));
      const onAnswer = (identifier: string) => {
        answered.add(identifier);
        if (answered.size >= expected) done();
      };
      const listeners = waiting.get(name) ?? new Set();
      listeners.add(onAnswer);
      waiting.set(name, listeners);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), ANSWER_TIMEOUT_MS);
      });
      const asked = (async () => {
        const ask = new OutgoingMessage(name).createSyncMessage().writeFirstSyncStepFor(document).toUint8Array();
        const subscribers = await redis.pub.publish(`${redis.configuration.prefix}:${name}`, Buffer.concat([redis.messagePrefix, ask]));
        expected = subscribers - 1;
        if (answered.size < expected) await complete;
        return 'answered' as const;
      })();
      asked.catch(() => undefined);
      try {
        // While Redis is unreachable the publish waits for a reconnection: the operation goes on with this copy.
        const outcome = await Promise.race([asked, timedOut]);
        if (outcome === 'timeout') {
          log.warn({ documentName: name, expected, answered: answered.size }, 'not every process holding a collaborative document answered in time; going on with this copy');
        }
      } catch (error) {
        log.warn({ err: error, documentName: name }, 'asking other processes for a collaborative document failed; going on with this copy');
      } finally {
        clearTimeout(timer);
        listeners.delete(onAnswer);
        if (listeners.size === 0 && waiting.get(name) === listeners) waiting.delete(name);
      }
    },
  };
}

export type PeerSync = ReturnType<typeof createPeerSync>;
