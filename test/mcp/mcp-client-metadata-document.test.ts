/**
 * The official MCP SDK client with a Client ID Metadata Document: seeing
 * `client_id_metadata_document_supported` in Lyceum's metadata, it uses its
 * document's URL as client_id and never registers; Lyceum fetches the
 * document (served over https by a local server with a test certificate
 * authority) and the flow ends in a working tool call.
 */
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentFor, startDocumentServer, TEST_CA, type DocumentServer } from '../helpers/document-server.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { formOf, recordingFetch } from '../helpers/mcp.ts';
import { InMemoryOAuthProvider } from '../helpers/mcp-oauth-provider.ts';
import { freePort } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { UserAgent } from '../helpers/user-agent.ts';

let docs: DocumentServer;
beforeAll(async () => {
  docs = await startDocumentServer();
});
afterAll(() => docs?.close());

describe.each(STORE_KINDS)('the MCP SDK client with a metadata document as client_id (%s)', (kind) => {
  let server: FlowServer;

  beforeAll(async () => {
    server = await startFlowServer(kind, { CIMD_ALLOW_HOSTS: 'localhost' }, { extraCa: TEST_CA });
  });
  afterAll(() => server?.stop());

  it('authorizes without registering, exchanges the code with no secret and calls a scoped tool', async () => {
    const path = `/mcp-client-${kind}.json`;
    const clientId = docs.url(path);
    // Portless loopback redirect URI: the SDK's listener picks its port.
    docs.json(path, documentFor(clientId, { client_name: 'MCP SDK test client', redirect_uris: ['http://127.0.0.1/callback'] }));
    const provider = new InMemoryOAuthProvider({ port: await freePort(), withState: true, clientMetadataUrl: clientId });
    const traffic = recordingFetch();
    const transport = new StreamableHTTPClientTransport(new URL(`${server.issuer}/mcp`), { authProvider: provider, fetch: traffic.fetch });
    const client = new Client({ name: 'lyceum-cimd-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      await expect(client.callTool({ name: 'list_records', arguments: { area: 'students' } })).rejects.toBeInstanceOf(UnauthorizedError);
      expect(traffic.log.filter((e) => e.url.pathname === '/api/oauth/register')).toHaveLength(0);
      const url = provider.lastAuthorizationUrl();
      expect(url.searchParams.get('client_id')).toBe(clientId);

      const callback = await new UserAgent(server.issuer).authorize(url.href, server.user);
      expect(callback.origin + callback.pathname).toBe(provider.redirectUrl);
      expect(callback.searchParams.get('iss')).toBe(server.issuer);
      await transport.finishAuth(callback.searchParams.get('code')!);
      const token = traffic.log.find((e) => e.url.pathname === '/api/oauth/token');
      expect(token?.status).toBe(200);
      expect(formOf(token!)).toMatchObject({ grant_type: 'authorization_code', client_id: clientId });
      expect(formOf(token!).client_secret).toBeUndefined();

      const result = (await client.callTool({ name: 'list_records', arguments: { area: 'students' } })) as { isError?: boolean };
      expect(result.isError ?? false).toBe(false);
      expect(docs.hits(path)).toBe(1);
    } finally {
      await client.close();
    }
  });
});
