import { constantTimeEqual, mac } from '../../../lib/crypto.js';

/** Where an async webhook step's callback lands: what its token is bound to. */
export interface CallbackTarget {
  apiKeyId: string;
  executionId: string;
  stepId: string;
}

/**
 * Tokens of async webhook steps' callbacks: the receiver of the step's
 * request answers with it and no API credentials, so the token is the
 * credential. `<target>.<mac>`: the target (application, execution, step) as
 * base64url JSON, so the callback finds its execution without a lookup
 * table, and an HMAC of it with a key derived from the master key, so no one
 * can make one for another step. Nothing is stored: a token is valid as long
 * as its step waits (the step's status, not the token, refuses a second
 * callback). A key derived from the master key the process started with: a
 * master-key rotation invalidates tokens handed out before it.
 */
export function createCallbackTokens(key: Buffer) {
  const tagOf = (target: string) => mac(key, `workflow-callback\n${target}`);
  return {
    issue(target: CallbackTarget): string {
      const encoded = Buffer.from(JSON.stringify([target.apiKeyId, target.executionId, target.stepId]), 'utf8').toString('base64url');
      return `${encoded}.${tagOf(encoded)}`;
    },
    /** The target a token was issued for, or null for anything we did not issue (compared in constant time). */
    read(token: string): CallbackTarget | null {
      const dot = token.indexOf('.');
      if (dot <= 0) return null;
      const encoded = token.slice(0, dot);
      if (!constantTimeEqual(token.slice(dot + 1), tagOf(encoded))) return null;
      const parts = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as unknown;
      if (!Array.isArray(parts) || parts.length !== 3 || !parts.every((part) => typeof part === 'string')) return null;
      const [apiKeyId, executionId, stepId] = parts as [string, string, string];
      return { apiKeyId, executionId, stepId };
    },
  };
}

export type CallbackTokens = ReturnType<typeof createCallbackTokens>;
