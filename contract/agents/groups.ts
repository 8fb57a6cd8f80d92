import { z } from 'zod';
import { operation, resultOf } from '../common/envelope.js';
import { MAX_AGENT_DESCRIPTION, MAX_AGENT_GROUPS, MAX_AGENT_NAME, MAX_GROUP_AGENTS, ZAgentGroup, ZAgentGroupId, ZAgentId } from './schemas.js';

const ZAgentIds = z
  .array(ZAgentId)
  .max(MAX_GROUP_AGENTS)
  .refine((ids) => new Set(ids).size === ids.length, 'must not list an agent twice')
  .describe(`The members, in the order Get Agent(s) lists them with this group (at most ${MAX_GROUP_AGENTS}, each once): custom or built-in agents of the application.`);

const MEMBERS_RULE = 'Every `agentIds` entry must be an agent of the application (NOT_FOUND naming the missing ones).';

export const createAgentGroup = operation({
  path: '/v2/agents/groups/create',
  summary: 'Create Agent Group',
  description: `Creates a named, ordered group of agents. ${MEMBERS_RULE} \`groupId\` is yours to choose (ALREADY_EXISTS when the application has it) or given by the service (\`agg_…\`). FAILED_PRECONDITION when the application already has ${MAX_AGENT_GROUPS} groups. Result: the group.`,
  data: z
    .object({
      groupId: ZAgentGroupId.optional(),
      name: z.string().min(1).max(MAX_AGENT_NAME),
      description: z.string().max(MAX_AGENT_DESCRIPTION).optional().describe("Default ''."),
      agentIds: ZAgentIds,
    })
    .strict(),
  result: resultOf(ZAgentGroup),
  example: {
    data: {
      groupId: 'grp-blog-qa',
      name: 'Blog QA',
      description: 'Checks run before a blog post goes live.',
      agentIds: ['agt_01KM5B0080HEG71HQ6XBBJEHN8', 'broken-links'],
    },
    result: {
      status: 'success',
      message: 'Agent group created.',
      data: {
        groupId: 'grp-blog-qa',
        name: 'Blog QA',
        description: 'Checks run before a blog post goes live.',
        agentIds: ['agt_01KM5B0080HEG71HQ6XBBJEHN8', 'broken-links'],
      },
    },
  },
});

export const getAgentGroups = operation({
  path: '/v2/agents/groups/get',
  summary: 'Get Agent Groups',
  description:
    "With `groupId`: that group as `result.data.group` (NOT_FOUND when the application has none). Without: every group of the application as `result.data.groups`, oldest first. A group lists only agents that exist (a deleted agent leaves every group).",
  data: z.object({ groupId: ZAgentGroupId.optional() }).strict(),
  result: resultOf(z.union([z.object({ group: ZAgentGroup }).strict(), z.object({ groups: z.array(ZAgentGroup) }).strict()])),
  example: {
    data: { groupId: 'grp-blog-qa' },
    result: {
      status: 'success',
      message: 'Agent groups retrieved successfully.',
      data: {
        group: {
          groupId: 'grp-blog-qa',
          name: 'Blog QA',
          description: 'Checks run before a blog post goes live.',
          agentIds: ['agt_01KM5B0080HEG71HQ6XBBJEHN8', 'broken-links'],
        },
      },
    },
  },
});

export const updateAgentGroup = operation({
  path: '/v2/agents/groups/update',
  summary: 'Update Agent Group',
  description: `Changes the fields sent; \`agentIds\` replaces the whole list (and its order). ${MEMBERS_RULE} At least one field besides \`groupId\` (INVALID_ARGUMENT otherwise); NOT_FOUND for an unknown group. Result: the group.`,
  data: z
    .object({
      groupId: ZAgentGroupId,
      name: z.string().min(1).max(MAX_AGENT_NAME).optional(),
      description: z.string().max(MAX_AGENT_DESCRIPTION).optional(),
      agentIds: ZAgentIds.optional(),
    })
    .strict()
    .refine((d) => Object.keys(d).some((key) => key !== 'groupId'), { message: 'give at least one field to change', path: ['groupId'] }),
  result: resultOf(ZAgentGroup),
  example: {
    data: { groupId: 'grp-blog-qa', agentIds: ['agt_01KM5B0080HEG71HQ6XBBJEHN8', 'broken-links', 'og-image-checker'] },
    result: {
      status: 'success',
      message: 'Agent group updated.',
      data: {
        groupId: 'grp-blog-qa',
        name: 'Blog QA',
        description: 'Checks run before a blog post goes live.',
        agentIds: ['agt_01KM5B0080HEG71HQ6XBBJEHN8', 'broken-links', 'og-image-checker'],
      },
    },
  },
});

export const deleteAgentGroup = operation({
  path: '/v2/agents/groups/delete',
  summary: 'Delete Agent Group',
  description: 'Deletes the group; its agents stay. NOT_FOUND for an unknown group. Result: `{groupId}`.',
  data: z.object({ groupId: ZAgentGroupId }).strict(),
  result: resultOf(z.object({ groupId: z.string() })),
  example: { data: { groupId: 'grp-blog-qa' }, result: { status: 'success', message: 'Agent group deleted.', data: { groupId: 'grp-blog-qa' } } },
});
