import type { UpgradeCase } from '../../helpers/migration-upgrade.js';

const at = (iso: string) => new Date(iso);

/**
 * 20261127092630_account_times_ms: the account and installation tables'
 * DateTime columns become BigInt Unix ms. Every converted column holds a
 * distinctive value with non-zero milliseconds, nullable ones also null;
 * among them times past 2038 (32 bits) and before 1970 (negative).
 */
export const accountTimesMs: UpgradeCase = {
  migration: '20261127092630_account_times_ms',
  rows: [
    { table: 'Workspace', values: { id: 'ws_1', name: 'One', ownerEmail: 'one@example.com', emailVerified: true, emailVerifiedAt: at('2026-02-02T03:04:05.678Z'), authTokenDigest: 'wsd-1', createdAt: at('2025-12-31T23:59:59.999Z') } },
    { table: 'Workspace', values: { id: 'ws_2', name: 'Two', ownerEmail: 'two@example.com', emailVerified: false, emailVerifiedAt: null, authTokenDigest: 'wsd-2', createdAt: at('2100-01-01T00:00:00.001Z') } },
    { table: 'ApiKey', values: { id: 'app_1', workspaceId: 'ws_1', keyDigest: 'kd-1', keyHint: 'ak_1', keySealed: 'sealed-1', name: 'default', expiredAt: null, createdAt: at('2026-01-01T00:00:00.001Z') } },
    { table: 'ApiKey', values: { id: 'app_2', workspaceId: 'ws_2', keyDigest: 'kd-2', keyHint: 'ak_2', keySealed: null, name: 'second', expiredAt: at('2038-01-19T03:14:08.123Z'), createdAt: at('2026-03-04T05:06:07.089Z') } },
    { table: 'AuthToken', values: { id: 'tok_1', apiKeyId: 'app_1', tokenDigest: 'td-1', tokenSealed: 'ts-1', name: 'default', createdAt: at('2026-06-15T12:00:00.500Z') } },
    { table: 'AuthToken', values: { id: 'tok_2', apiKeyId: 'app_2', tokenDigest: 'td-2', tokenSealed: 'ts-2', name: 'other', createdAt: at('1999-12-31T23:59:59.990Z') } },
    { table: 'Setting', values: { apiKeyId: 'app_1', kind: 'email', value: '{"useEmailService":true}', updatedAt: at('2026-07-07T07:07:07.007Z') } },
    { table: 'Setting', values: { apiKeyId: 'app_2', kind: 'activity', value: '{}', updatedAt: at('2026-07-08T00:00:00.010Z') } },
    { table: 'FeatureToggle', values: { apiKeyId: 'app_1', name: 'notifications', enabled: false, updatedAt: at('2026-08-08T08:08:08.808Z') } },
    { table: 'AiProviderKey', values: { apiKeyId: 'app_2', provider: 'openai', keySealed: 'sk-sealed', updatedAt: at('2026-09-09T09:09:09.909Z') } },
    { table: 'SigningKey', values: { kid: 'app_1.a', apiKeyId: 'app_1', publicJwk: '{"kid":"app_1.a"}', privateJwkSealed: 'p-1', createdAt: at('2026-10-10T10:10:10.010Z'), retiredAt: at('2026-10-11T11:11:11.111Z') } },
    { table: 'SigningKey', values: { kid: 'app_1.b', apiKeyId: 'app_1', publicJwk: '{"kid":"app_1.b"}', privateJwkSealed: 'p-2', createdAt: at('2026-10-11T11:11:11.111Z'), retiredAt: null } },
    { table: 'ServerMeta', values: { key: 'masterKeyCheck', value: 'sealed-check', createdAt: at('1969-12-31T23:59:59.999Z') } },
  ],
  toMs: {
    Workspace: ['emailVerifiedAt', 'createdAt'],
    ApiKey: ['expiredAt', 'createdAt'],
    AuthToken: ['createdAt'],
    Setting: ['updatedAt'],
    FeatureToggle: ['updatedAt'],
    AiProviderKey: ['updatedAt'],
    SigningKey: ['createdAt', 'retiredAt'],
    ServerMeta: ['createdAt'],
  },
};
