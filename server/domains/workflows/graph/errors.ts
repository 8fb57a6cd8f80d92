/**
 * The rules a definition's graph must follow, and the error that lists the
 * ones it breaks. Codes follow the hosted service's linter and edge
 * validation names (lowercased, without the APPROVAL_ prefix) where it has
 * one; docs/workflows.md lists them.
 */

export const GRAPH_RULES = [
  'duplicate-node-id',
  'dangling-edge',
  'cycle-detected',
  'unreachable-node',
  'missing-breach-edge',
  'agent-node-requires-url-or-urlpath',
  'human-reviewers',
  'notification-needs-recipients',
  'human-node-requires-reject-path',
  'group-duplicate-id',
  'group-member-missing',
  'group-member-duplicate',
  'group-expected-steps-invalid',
  'group-quorum-invalid',
  'group-required-not-in-members',
  'group-required-exceeds-quorum',
  'group-node-in-multiple-groups',
  'group-cancelonquorum-requires-quorum-lt-expected',
  'group-joinonquorum-members-must-share-successors',
  'group-from-reject-requires-loop',
  'group-from-loop-requires-joinonquorum',
  'edge-group-to-group-forbidden',
  'edge-custom-requires-when',
  'edge-when-only-for-custom',
  'condition-invalid',
  'edge-breached-requires-sla',
  'edge-loop-requires-reject',
  'edge-loop-requires-back-edge',
  'edge-reject-cycle-requires-loop',
  'edge-exhausted-requires-loop-sibling',
  'loop-node-in-multiple-loops',
  'loop-body-must-have-single-terminal',
  'loop-group-bounded-quorum-must-equal-expected',
] as const;
export type GraphRule = (typeof GRAPH_RULES)[number];

export interface GraphIssue {
  code: GraphRule;
  /** Where in the definition: `nodes[2]`, `edges[3]`, `groups[0]`. */
  at: string;
  /** `<code>: <explanation naming the node, edge or group>`. */
  message: string;
}

/**
 * A definition whose graph breaks a rule. `code` and `message` are the
 * first issue's; `issues` holds every issue of the first stage of checks
 * that found any (each stage relies on the one before being clean: no
 * cycle search over dangling edges, no loop derivation over a cycle).
 */
export class GraphError extends Error {
  readonly code: GraphRule;
  readonly at: string;
  readonly issues: readonly GraphIssue[];

  constructor(issues: readonly GraphIssue[]) {
    const first = issues[0];
    if (!first) throw new TypeError('GraphError needs at least one issue');
    super(first.message);
    this.name = 'GraphError';
    this.code = first.code;
    this.at = first.at;
    this.issues = issues;
  }
}

/** Collects the issues of one stage. */
export class Issues {
  readonly list: GraphIssue[] = [];

  add(code: GraphRule, at: string, explanation: string): void {
    this.list.push({ code, at, message: `${code}: ${explanation}` });
  }

  /** Ends the stage: throws when it found anything. */
  check(): void {
    if (this.list.length > 0) throw new GraphError(this.list);
  }
}
