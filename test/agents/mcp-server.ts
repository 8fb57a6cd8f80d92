import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** The style guide's rules, by term: what `lookup_term` answers. */
export const RULES: Record<string, string> = {
  Teh: 'Style guide rule 12: "Teh" is always a typo of "The".',
};

export interface StyleGuideServer {
  url: string;
  /** Each `lookup_term` call's arguments, in order. */
  calls: Array<Record<string, unknown>>;
  /** The headers of every HTTP request the server received. */
  headers: IncomingHttpHeaders[];
  close(): Promise<void>;
}

function styleGuide(calls: Array<Record<string, unknown>>): McpServer {
  const mcp = new McpServer({ name: 'style-guide', version: '1.0.0' });
  mcp.registerTool('lookup_term', { description: 'The style guide rule for a term.', inputSchema: { term: z.string() } }, async ({ term }) => {
    calls.push({ term });
    return { content: [{ type: 'text', text: RULES[term] ?? `No rule for ${term}.` }] };
  });
  return mcp;
}

/**
 * The same server over the older HTTP+SSE transport only (GET /sse opens the
 * stream, POST /messages carries the requests): Streamable HTTP requests get 404.
 */
export async function startSseStyleGuideServer(): Promise<StyleGuideServer> {
  const calls: Array<Record<string, unknown>> = [];
  const headers: IncomingHttpHeaders[] = [];
  const sessions = new Map<string, SSEServerTransport>();
  const http: Server = createServer((req, res) => {
    headers.push(req.headers);
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/sse') {
      const transport = new SSEServerTransport('/messages', res);
      sessions.set(transport.sessionId, transport);
      res.on('close', () => sessions.delete(transport.sessionId));
      void styleGuide(calls).connect(transport);
      return;
    }
    const transport = req.method === 'POST' && url.pathname === '/messages' ? sessions.get(url.searchParams.get('sessionId') ?? '') : undefined;
    if (transport === undefined) {
      res.writeHead(404).end();
      return;
    }
    void transport.handlePostMessage(req, res);
  });
  return listening(http, '/sse', calls, headers);
}

/**
 * A real MCP server (the SDK's McpServer over Streamable HTTP, stateless: a
 * server and transport per request) on port 0, with one tool, `lookup_term`.
 */
export async function startStyleGuideServer(): Promise<StyleGuideServer> {
  const calls: Array<Record<string, unknown>> = [];
  const headers: IncomingHttpHeaders[] = [];
  const http: Server = createServer((req, res) => {
    headers.push(req.headers);
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const mcp = styleGuide(calls);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    void mcp.connect(transport).then(() => transport.handleRequest(req, res));
  });
  return listening(http, '/mcp', calls, headers);
}

/** The server on port 0, with what the tests read of it. */
async function listening(http: Server, path: string, calls: Array<Record<string, unknown>>, headers: IncomingHttpHeaders[]): Promise<StyleGuideServer> {
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}${path}`,
    calls,
    headers,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
