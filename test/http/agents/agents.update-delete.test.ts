// Update Agent (identity) and Delete Agent: identity changes create no version,
// built-in agents accept only `enabled` and cannot be deleted, deletion takes
// the versions and group memberships along.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCollabError, expectCredentialChecks } from '../../helpers/credentials.js';
import { usingPostgres } from '../../helpers/database.js';
import { appHeaders } from '../../helpers/server.js';
import { type AgentsTestContext, applicationIdOf, BUILTIN_IDS, minimalAgent, startAgentsTest } from './fixtures.js';

let { server, ws, client, apiKeyId } = {} as AgentsTestContext;
beforeAll(async () => ({ server, ws, client, apiKeyId } = await startAgentsTest()));
afterAll(() => server?.close());

const readOne = async (agentId: string) => ((await client.agents.getAgents({ agentId })).data as { agent: Record<string, unknown> }).agent;
const versionRows = (agentId: string) => server.running.database.db.agentVersion.count({ where: { apiKeyId, agentId } });

describe('Update Agent (identity)', () => {
  it('changes name, description and enabled of a custom agent without creating a version', async () => {
    const { agentId, agent } = (await client.agents.createAgent(minimalAgent())).data;
    const result = await client.agents.updateAgent({ agentId, name: 'Renamed', description: 'New words', enabled: false });
    expect(result.data).toEqual({ agentId });
    expect(await readOne(agentId)).toEqual({ ...agent, name: 'Renamed', description: 'New words', enabled: false });
    await client.agents.updateAgent({ agentId, enabled: true });
    await client.agents.updateAgent({ agentId, description: '' });
    expect(await readOne(agentId)).toMatchObject({ name: 'Renamed', description: '', enabled: true, version: 1 });
    expect(await versionRows(agentId)).toBe(1);
    expect((await client.agents.getAgentVersions({ agentId })).data.map((v) => v.version)).toEqual([1]);
  });

  it('with none of name, description and enabled succeeds as a no-op for a custom agent', async () => {
    const { agentId, agent } = (await client.agents.createAgent(minimalAgent())).data;
    const before = await server.running.database.db.agent.findFirstOrThrow({ where: { apiKeyId, id: agentId } });
    expect((await client.agents.updateAgent({ agentId })).data).toEqual({ agentId });
    expect(await readOne(agentId)).toEqual(agent);
    expect(await server.running.database.db.agent.findFirstOrThrow({ where: { apiKeyId, id: agentId } })).toEqual(before);
  });

  it('built-in agents accept only enabled, per application; without it INVALID_ARGUMENT; name and description beside it are ignored', async () => {
    for (const agentId of BUILTIN_IDS) {
      await expectCollabError(client.agents.updateAgent({ agentId }), 'INVALID_ARGUMENT', /data\.enabled is required/);
      await expectCollabError(client.agents.updateAgent({ agentId, name: 'Mine now' }), 'INVALID_ARGUMENT', /data\.enabled is required/);
      const before = await readOne(agentId);
      expect((await client.agents.updateAgent({ agentId, enabled: false, name: 'Mine now', description: 'Changed' })).data).toEqual({ agentId });
      expect(await readOne(agentId)).toEqual({ ...before, enabled: false });
      await client.agents.updateAgent({ agentId, enabled: true });
      expect(await readOne(agentId)).toEqual(before);
    }
  });

  it('keeps a built-in agent state row only once it is changed', async () => {
    const states = () => server.running.database.db.builtinAgentState.findMany({ where: { apiKeyId, agentId: 'og-image-checker' } });
    const other = await server.workspace();
    const otherId = await applicationIdOf(server, other);
    await server.client(other).agents.updateAgent({ agentId: 'crawler', enabled: true });
    expect(await server.running.database.db.builtinAgentState.count({ where: { apiKeyId: otherId } })).toBe(0);
    await client.agents.updateAgent({ agentId: 'og-image-checker', enabled: false });
    expect((await states()).map((s) => s.enabled)).toEqual([false]);
  });

  it('is INVALID_ARGUMENT for a missing agentId or an empty name, or behavioral fields; NOT_FOUND for an unknown agent', async () => {
    const { agentId } = (await client.agents.createAgent(minimalAgent())).data;
    await expectCollabError(client.agents.updateAgent({ name: 'x' } as never), 'INVALID_ARGUMENT', /data\.agentId is required/);
    await expectCollabError(client.agents.updateAgent({ agentId: '' }), 'INVALID_ARGUMENT', /data\.agentId/);
    await expectCollabError(client.agents.updateAgent({ agentId, name: '' }), 'INVALID_ARGUMENT', /data\.name/);
    await expectCollabError(client.agents.updateAgent({ agentId: 'crawler', enabled: true, name: '' }), 'INVALID_ARGUMENT', /data\.name/);
    await expectCollabError(client.agents.updateAgent({ agentId, instructions: 'x' } as never), 'INVALID_ARGUMENT', /instructions/);
    await expectCollabError(client.agents.updateAgent({ agentId, enabled: 'no' } as never), 'INVALID_ARGUMENT', /data\.enabled must be boolean/);
    await expectCollabError(client.agents.updateAgent({ agentId: 'agt_missing', enabled: false }), 'NOT_FOUND', /no agent agt_missing/);
    await expectCollabError(client.agents.updateAgent({ agentId: 'agt_missing' }), 'NOT_FOUND', /no agent agt_missing/);
  });

  it('checks credentials', async () => {
    await expectCredentialChecks(server, ws, '/v2/agents/update', { agentId: 'crawler', enabled: true });
  });
});

describe('Delete Agent', () => {
  it('deletes a custom agent with its versions and removes it from every group, in one transaction', async () => {
    const { agentId } = (await client.agents.createAgent(minimalAgent())).data;
    const keep = (await client.agents.createAgent(minimalAgent({ name: 'Keep' }))).data.agentId;
    await client.agents.updateAgentVersion({ agentId, instructions: 'v2' });
    await client.agents.createAgentGroup({ groupId: 'g1', name: 'G1', agentIds: [keep, agentId, 'crawler'] });
    await client.agents.createAgentGroup({ groupId: 'g2', name: 'G2', agentIds: [agentId] });
    expect(await versionRows(agentId)).toBe(2);

    expect((await client.agents.deleteAgent({ agentId })).data).toEqual({ agentId });
    await expectCollabError(client.agents.getAgents({ agentId }), 'NOT_FOUND');
    await expectCollabError(client.agents.getAgentVersions({ agentId }), 'NOT_FOUND');
    await expectCollabError(client.agents.getAgentVersion({ agentId, version: 1 }), 'NOT_FOUND');
    expect(await versionRows(agentId)).toBe(0);
    const groups = await server.running.database.db.agentGroup.findMany({ where: { apiKeyId }, orderBy: { id: 'asc' } });
    expect(groups.map((g) => [g.id, JSON.parse(g.agentIds)])).toEqual([
      ['g1', [keep, 'crawler']],
      ['g2', []],
    ]);
    const list = (await client.agents.getAgents({})).data as { agents: { id: string }[] };
    expect(list.agents.map((a) => a.id)).not.toContain(agentId);
    await expectCollabError(client.agents.deleteAgent({ agentId }), 'NOT_FOUND', /no agent/);
  });

  it('leaves everything in place when a step of the deletion fails', async () => {
    const { agentId } = (await client.agents.createAgent(minimalAgent())).data;
    await client.agents.createAgentGroup({ groupId: 'atomic', name: 'A', agentIds: [agentId] });
    // The group rewrite, the last write of the deletion, is refused by the database.
    const { db } = server.running.database;
    if (usingPostgres) {
      await db.$executeRawUnsafe(
        `CREATE FUNCTION refuse_group_update() RETURNS trigger AS $$ BEGIN IF OLD."id" = 'atomic' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
      );
      await db.$executeRawUnsafe('CREATE TRIGGER refuse_group_update BEFORE UPDATE ON "AgentGroup" FOR EACH ROW EXECUTE FUNCTION refuse_group_update()');
    } else {
      await db.$executeRawUnsafe(`CREATE TRIGGER refuse_group_update BEFORE UPDATE ON "AgentGroup" WHEN OLD."id" = 'atomic' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
    }
    const res = await server.post('/v2/agents/delete', { data: { agentId } }, appHeaders(ws));
    expect([res.status, res.body.error?.status]).toEqual([500, 'INTERNAL']);
    await db.$executeRawUnsafe('DROP TRIGGER refuse_group_update' + (usingPostgres ? ' ON "AgentGroup"' : ''));
    expect(await readOne(agentId)).toMatchObject({ id: agentId, version: 1 });
    expect(await versionRows(agentId)).toBe(1);
    expect((await client.agents.getAgentGroups({ groupId: 'atomic' })).data).toMatchObject({ group: { agentIds: [agentId] } });
  });

  it('is FAILED_PRECONDITION for a built-in agent and NOT_FOUND for an unknown one', async () => {
    for (const agentId of BUILTIN_IDS) {
      await expectCollabError(client.agents.deleteAgent({ agentId }), 'FAILED_PRECONDITION', /built-in agent and cannot be deleted/);
      expect(await readOne(agentId)).toMatchObject({ id: agentId, system: true });
    }
    await expectCollabError(client.agents.deleteAgent({ agentId: 'agt_nope' }), 'NOT_FOUND');
    await expectCollabError(client.agents.deleteAgent({} as never), 'INVALID_ARGUMENT', /data\.agentId is required/);
  });

  it('checks credentials', async () => {
    await expectCredentialChecks(server, ws, '/v2/agents/delete', { agentId: 'agt_x' });
  });
});
