// An agent run over 20 local pages: a custom `ai` agent reading each page's
// text, with a local fake provider that answers every page with one finding
// after a fixed delay (a model's latency is not ours to measure). Reports the
// run's wall time from Run Agent to its end, and the RSS of the server
// process that runs it (its own process, so the run is all it does).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { serviceHeaders, type BenchContext, type MeasuredScenario } from './scenarios.js';

const PAGES = 20;
/** How long the fake provider takes per answer. */
const PROVIDER_DELAY_MS = 50;

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

/** A site of PAGES pages, each linking to the next and back to the first, ~6 KB of text each. */
function site(): Server {
  const text = 'The quick brown fox jumps over the lazy dog. '.repeat(140);
  return createServer((req, res) => {
    const n = Number(/^\/p(\d+)$/.exec(req.url ?? '')?.[1] ?? Number.NaN);
    if (!(n >= 0 && n < PAGES)) {
      res.writeHead(404).end();
      return;
    }
    const links = Array.from({ length: PAGES }, (_, i) => `<a href="/p${i}">Page ${i}</a>`).join(' ');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>Page ${n}</title></head><body><h1>Page ${n}</h1><p>Teh ${text}</p><nav>${links}</nav></body></html>`);
  });
}

/** An OpenAI-compatible chat completions endpoint that finds one typo per page. */
function provider(): Server {
  return createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      setTimeout(() => {
        const content = JSON.stringify({ findings: [{ title: 'Typo', description: 'Misspelt.', severity: 'low', targetText: 'Teh', occurrence: 1, suggestion: 'The', issueType: 'spelling', confidence: 90 }] });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 0, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop' }], usage: { prompt_tokens: 1500, completion_tokens: 40, total_tokens: 1540 } }));
      }, PROVIDER_DELAY_MS);
    });
  });
}

const rssMiB = (pid: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) / 1024;

export const agentRunScenario: MeasuredScenario = {
  name: `Agent run: a text agent over ${PAGES} local pages`,
  async measure(ctx: BenchContext) {
    const pages = site();
    const fake = provider();
    const [siteUrl, providerUrl] = await Promise.all([listen(pages), listen(fake)]);
    const runner = await ctx.startServer({ OPENAI_BASE_URL: `${providerUrl}/v1`, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    try {
      const headers = serviceHeaders(ctx.workspace);
      const post = async <T>(path: string, data: unknown): Promise<T> => {
        const response = await fetch(new URL(path, runner.url), { method: 'POST', headers, body: JSON.stringify({ data }) });
        const body = (await response.json()) as { result?: { data: T }; error?: unknown };
        if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(body.error)}`);
        return body.result!.data;
      };
      await ctx.cli(['ai-key', 'set', '--api-key', ctx.workspace.apiKey, '--provider', 'openai', '--key', 'sk-bench-agent-run']);
      await post('/v2/organizations/add', { organizationId: 'bench-agents' }).catch(() => undefined);
      await post('/v2/organizations/documents/add', { organizationId: 'bench-agents', documentId: 'bench-agent-doc' }).catch(() => undefined);
      const { agentId } = await post<{ agentId: string }>('/v2/agents/create', {
        name: 'Bench proofreader',
        description: 'Finds typos.',
        enabled: true,
        instructions: 'Find spelling mistakes.',
        contextGathering: { strategies: ['web-page-text'] },
        execution: {},
      });
      const rssBefore = rssMiB(runner.pid);
      let rssPeak = rssBefore;
      const started = performance.now();
      const { executionId } = await post<{ executionId: string }>('/v2/agents/execution/run', {
        agentId,
        url: `${siteUrl}/p0`,
        organizationId: 'bench-agents',
        documentId: 'bench-agent-doc',
        crossPageExecute: true,
        maxUrlsToProcess: PAGES,
      });
      let execution: { status: string; resultsSummary: { urlsProcessed: number; totalAnnotationsCreated: number } };
      for (;;) {
        rssPeak = Math.max(rssPeak, rssMiB(runner.pid));
        execution = (await post<{ execution: typeof execution }>('/v2/agents/execution/get', { executionId })).execution;
        if (execution.status !== 'running') break;
        if (performance.now() - started > 120_000) throw new Error('the run did not end within 120 s');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const wallMs = performance.now() - started;
      if (execution.status !== 'failed' || execution.resultsSummary.urlsProcessed !== PAGES) {
        throw new Error(`the run ended ${execution.status} with ${execution.resultsSummary.urlsProcessed} pages`);
      }
      return {
        figures: [
          { name: 'pages processed', value: execution.resultsSummary.urlsProcessed, unit: '' },
          { name: 'suggestion threads written', value: execution.resultsSummary.totalAnnotationsCreated, unit: '' },
          { name: 'wall time, Run Agent to its end', value: Math.round(wallMs), unit: 'ms' },
          { name: `  of it the fake provider's own delay (${PROVIDER_DELAY_MS} ms per page)`, value: PAGES * PROVIDER_DELAY_MS, unit: 'ms' },
          { name: 'server RSS before the run', value: Math.round(rssBefore * 10) / 10, unit: 'MiB' },
          { name: 'server RSS peak during the run (sampled every ~20 ms)', value: Math.round(rssPeak * 10) / 10, unit: 'MiB' },
        ],
      };
    } finally {
      await runner.stop();
      await new Promise((resolve) => pages.close(resolve));
      await new Promise((resolve) => fake.close(resolve));
    }
  },
};
