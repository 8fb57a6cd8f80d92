import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes (what Svix and standardwebhooks verifiers take). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The `webhook-signature` header: `v1,<sig>` per secret, space-separated,
 * current secret first. Signed with the standardwebhooks package over
 * `id.timestamp.body`, the exact bytes sent.
 */
export function signatureHeader(secrets: readonly string[], messageId: string, at: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(messageId, at, body)).join(' ');
}
