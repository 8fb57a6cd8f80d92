import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract/index.js';
import { applicationOf } from '../../http/context.js';
import type { AiService } from './service.js';

export function aiRouter(service: AiService) {
  return initServer().router(contract.ai, {
    askAi: async ({ req, res, body }) => {
      // A client that hangs up cancels the provider call: its answer could not be delivered anyway.
      const clientGone = new AbortController();
      const onClose = () => {
        if (!res.writableFinished) clientGone.abort();
      };
      res.once('close', onClose);
      // Gone while the request was authenticated and parsed: 'close' fired before anyone listened.
      if (req.socket.destroyed) clientGone.abort();
      try {
        // The specification's result for Ask AI: `{success, text | error}` with no status or message.
        const result = await service.askAi(applicationOf(req), body.data, { signal: clientGone.signal, log: req.log });
        return { status: 200 as const, body: { result } };
      } finally {
        res.off('close', onClose);
      }
    },
  });
}
