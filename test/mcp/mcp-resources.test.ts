import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { mcpPost, rpc } from '../helpers/mcp.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

describe.each(STORE_KINDS)('MCP resources, prompts, completion and logging (%s)', (kind) => {
  let server: FlowServer;
  let client: Client;

  async function connect(authorization?: string): Promise<Client> {
    const c = new Client({ name: 'lyceum-resources-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.issuer}/mcp`), authorization ? { requestInit: { headers: { authorization } } } : {});
    await c.connect(transport);
    return c;
  }

  beforeAll(async () => {
    server = await startFlowServer(kind);
    client = await connect();
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  it('initialize declares logging', () => {
    expect(client.getServerCapabilities()).toEqual({ logging: {}, tools: { listChanged: false } });
  });

  describe('logging', () => {
    it('logging/setLevel answers {} for every level, and -32602 for a name that is no level', async () => {
      for (const level of ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const) {
        expect(await client.setLoggingLevel(level), level).toEqual({});
      }
      const res = await mcpPost(server.issuer, rpc('logging/setLevel', { level: 'loud' }));
      expect(res.status).toBe(200);
      expect((res.json as { error: unknown }).error).toEqual({ code: -32602, message: 'level must be one of debug, info, notice, warning, error, critical, alert, emergency' });
      expect((await mcpPost(server.issuer, rpc('logging/setLevel'))).json).toMatchObject({ error: { code: -32602 } });
    });
  });
});
