import { z } from 'zod';
import { operation, resultOf } from '../common/envelope.js';
import { named } from '../common/named.js';

export const ZGetAuthTokensData = z.object({ apiKey: z.string().min(1).describe('An API key of the calling workspace.') }).strict();

export const ZAuthTokenEntry = named('AuthToken', z.object({
  token: z.string(),
  name: z.string(),
  createdAt: z.number().describe('Unix time in milliseconds.'),
}));

export const getAuthTokens = operation({
  path: '/v2/workspace/authtokens/get',
  summary: 'Get Auth Tokens',
  description:
    'Workspace-level: authenticate with `x-service-workspace-id` and `x-service-workspace-auth-token`. Lists the auth tokens of one API key of the workspace, oldest first. NOT_FOUND when the key is not one of this workspace\'s.',
  auth: 'workspace',
  data: ZGetAuthTokensData,
  result: resultOf(z.object({ apiKey: z.string(), authTokens: z.array(ZAuthTokenEntry) })),
});
