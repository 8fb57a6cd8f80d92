import type { DomainModule, Platform } from '../../platform/module.js';
import { createAiService } from './service.js';

/** Ask AI: the calling application's provider key, read and opened per call (keys are set with the CLI's `ai-key set`). */
export function aiModule(p: Platform, deps: { sealedAiKeyOf(apiKeyId: string, provider: string): Promise<string | null> }) {
  const ai = createAiService({ sealedKeyOf: deps.sealedAiKeyOf, sealer: p.sealer, options: p.config.ai, log: p.logger });
  return { services: { ai } } satisfies DomainModule;
}
