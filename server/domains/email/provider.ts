import { EmailSendError, redact, type OutgoingEmail } from './sender.js';

/** A try without a complete answer within this fails; the job retries it later. */
const PROVIDER_TIMEOUT_MS = 15_000;

/**
 * Sends email of type `thirdparty` through the delivery provider's HTTP API,
 * in the shape of SendGrid's v3 Mail Send (`POST /v3/mail/send`, bearer API
 * key, 2xx = accepted). The base URL is the operator's EMAIL_PROVIDER_BASE_URL,
 * a trusted setting, so it is not put through the guard that keeps
 * customer-given URLs off private addresses. Errors never carry the key.
 */
export function createProviderSender(options: { baseUrl: string }) {
  const endpoint = `${options.baseUrl}/v3/mail/send`;

  return {
    async send(email: OutgoingEmail, apiKey: string, signal?: AbortSignal): Promise<{ status: number }> {
      if (apiKey === '') throw new EmailSendError('type thirdparty has no apiKey stored: set it with Update Email Config');
      if (email.from === null) throw new EmailSendError('type thirdparty has no fromEmail stored: set it with Update Email Config');
      const body = {
        personalizations: [{ to: [{ email: email.to.email, ...(email.to.name ? { name: email.to.name } : {}) }] }],
        from: { email: email.from.email, ...(email.from.name ? { name: email.from.name } : {}) },
        subject: email.subject,
        content: [
          { type: 'text/plain', value: email.text },
          { type: 'text/html', value: email.html },
        ],
      };
      const timeout = AbortSignal.timeout(PROVIDER_TIMEOUT_MS);
      let response: Response;
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
          // A redirect would carry the key elsewhere.
          redirect: 'error',
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
      } catch (error) {
        const err = error as Error & { cause?: { code?: string; message?: string } };
        const reason = timeout.aborted ? `no answer within ${PROVIDER_TIMEOUT_MS / 1000} s` : (err.cause?.code ?? err.cause?.message ?? err.message);
        throw new EmailSendError(redact(`email provider request failed: ${reason}`, [apiKey]));
      }
      if (response.status < 200 || response.status >= 300) {
        const detail = (await response.text().catch(() => '')).replace(/\s+/g, ' ').trim();
        throw new EmailSendError(redact(`email provider answered HTTP ${response.status}${detail ? `: ${detail}` : ''}`, [apiKey]));
      }
      await response.body?.cancel().catch(() => undefined);
      return { status: response.status };
    },
  };
}

export type ProviderSender = ReturnType<typeof createProviderSender>;
