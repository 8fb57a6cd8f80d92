import { z } from 'zod';
import { operation, resultOf } from '../common/envelope.js';
import { named } from '../common/named.js';
import { EXAMPLE_API_KEY } from '../access/examples.js';

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
  example: {
    data: { apiKey: EXAMPLE_API_KEY },
    result: {
      status: 'success',
      message: 'Auth tokens retrieved successfully.',
      data: {
        apiKey: EXAMPLE_API_KEY,
        // Placeholders in the real format (`at_` + 43 base64url characters): `default` came with the workspace, `ci` from `auth-token create --name ci`.
        authTokens: [
          { token: 'at_EXAMPLE_auth_token_default_0000000000000000', name: 'default', createdAt: Date.UTC(2026, 0, 5, 8, 0) },
          { token: 'at_EXAMPLE_auth_token_ci_000000000000000000000', name: 'ci', createdAt: Date.UTC(2026, 0, 19, 13, 45) },
        ],
      },
    },
  },
});
