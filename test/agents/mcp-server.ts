import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
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
    const mcp = new McpServer({ name: 'style-guide', version: '1.0.0' });
    mcp.registerTool(
      'lookup_term',
      { description: 'The style guide rule for a term.', inputSchema: { term: z.string() } },
      async ({ term }) => {
        calls.push({ term });
        return { content: [{ type: 'text', text: RULES[term] ?? `No rule for ${term}.` }] };
      },
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    void mcp.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    calls,
    headers,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
