import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract/index.js';
import { applicationOf } from '../../http/context.js';
import { ok, paged } from '../../http/respond.js';
import type { MemoryService } from './service.js';

export function memoryRouter(service: MemoryService) {
  return initServer().router(contract.memory, {
    addJudgment: async ({ req, body }) => ok('Judgment added.', await service.addJudgment(applicationOf(req), body.data)),
    getJudgments: async ({ req, body }) => paged('Judgments retrieved successfully.', await service.getJudgments(applicationOf(req), body.data)),
    deleteJudgments: async ({ req, body }) => ok('Judgments deleted.', await service.deleteJudgments(applicationOf(req), body.data)),
    // The specification's exception: `result` is the suggestion pair itself, without status or message.
    suggestDecision: async ({ req, body }) => ({ status: 200 as const, body: { result: await service.suggestDecision(applicationOf(req), body.data) } }),
  });
}
