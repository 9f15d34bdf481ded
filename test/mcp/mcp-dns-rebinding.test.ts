import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AREAS } from '../../src/platform/areas.ts';
import { obtainTokens, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { MCP_ACCEPT, seedSchool, toolCall, type Seeded } from '../helpers/mcp.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/** An origin a browser-based MCP client (the MCP Inspector) runs on, allowed by MCP_ALLOWED_ORIGINS. */
const INSPECTOR = 'http://localhost:6274';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** POST /mcp over plain node:http, so the test chooses Host itself (fetch does not let it). */
function post(issuer: string, message: unknown, headers: Record<string, string>): Promise<Answer> {
  const url = new URL('/mcp', issuer);
  const body = JSON.stringify(message);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { accept: MCP_ACCEPT, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const refusal = (message: string) => ({ jsonrpc: '2.0', id: null, error: { code: -32000, message } });

describe.each(STORE_KINDS)('MCP DNS-rebinding protection (%s)', (kind) => {
  let server: FlowServer;
  let seeded: Seeded;
  let bearer: string;
  let host: string;
  beforeAll(async () => {
    server = await startFlowServer(kind, { MCP_ALLOWED_ORIGINS: INSPECTOR });
    seeded = await seedSchool(server);
    bearer = `Bearer ${(await obtainTokens(server, { scope: 'courses:write' })).tokens.access_token}`;
    host = new URL(server.issuer).host;
  });
  afterAll(() => server?.stop());

  /** A tool call with an effect anyone can see: the course's title. */
  const rename = (title: string) => toolCall('update_record', { id: seeded.courses.published[0], values: { title } });
  const courseTitle = async () => (await server.deps.store.records.get(AREAS.courses.name, seeded.courses.published[0]!))?.title;

  it('refuses a foreign Origin with 403 and a JSON-RPC error, before the tool runs', async () => {
    const before = await courseTitle();
    const res = await post(server.issuer, rename('Renamed from evil.example'), { host, origin: 'http://evil.example', authorization: bearer });
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toEqual(refusal(`Invalid Origin header: http://evil.example. Only pages of ${server.issuer} (and the origins in MCP_ALLOWED_ORIGINS) may call this MCP server from a browser.`));
    expect(await courseTitle()).toBe(before);
  });

  it('refuses Origin: null (sandboxed frames, files) and a look-alike of the issuer on another port', async () => {
    const other = `http://127.0.0.1:${Number(new URL(server.issuer).port) + 1}`;
    for (const origin of ['null', other, `${server.issuer}.evil.example`]) {
      const res = await post(server.issuer, rename('x'), { host, origin, authorization: bearer });
      expect(res.status, origin).toBe(403);
      expect((res.body as { error: { message: string } }).error.message, origin).toMatch(/^Invalid Origin header: /);
    }
  });

  it('refuses Host: evil.example (a rebound name) with 403 while bound to loopback, even without Origin', async () => {
    const before = await courseTitle();
    const res = await post(server.issuer, rename('Renamed through a rebound name'), { host: 'evil.example', authorization: bearer });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(refusal(`Invalid Host header: evil.example. This MCP server answers only at ${host}.`));
    expect(await courseTitle()).toBe(before);
  });

  it('serves the issuer’s Host with no Origin (CLI tools, IDE agents), its own Origin, and an allowed one', async () => {
    for (const [label, headers] of [
      ['no Origin', { host }],
      ['the issuer’s Origin', { host, origin: server.issuer }],
      ['MCP_ALLOWED_ORIGINS', { host, origin: INSPECTOR }],
    ] as const) {
      const title = `Renamed with ${label}`;
      const res = await post(server.issuer, rename(title), { ...headers, authorization: bearer });
      expect(res.status, label).toBe(200);
      expect((res.body as { result: { isError?: boolean } }).result.isError ?? false, label).toBe(false);
      expect(await courseTitle(), label).toBe(title);
    }
  });
});

describe('MCP Host check off the loopback interface', () => {
  let server: FlowServer;
  afterAll(() => server?.stop());

  it('with HOST=0.0.0.0 (behind a load balancer) any Host is served, and a foreign Origin is still refused', async () => {
    server = await startFlowServer(STORE_KINDS[0]!, { HOST: '0.0.0.0' });
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    expect((await post(server.issuer, list, { host: 'lyceum-1.internal:3000' })).status).toBe(200);
    expect((await post(server.issuer, list, { host: 'lyceum-1.internal:3000', origin: 'http://evil.example' })).status).toBe(403);
  });
});

describe('MCP Host check behind a proxy on the same machine', () => {
  let server: FlowServer;
  afterAll(() => server?.stop());

  it('with TRUST_PROXY the Host is the X-Forwarded-Host the proxy sets, as everywhere else in the app', async () => {
    server = await startFlowServer(STORE_KINDS[0]!, { TRUST_PROXY: '1' });
    const issuerHost = new URL(server.issuer).host;
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    expect((await post(server.issuer, list, { host: '127.0.0.1:1', 'x-forwarded-host': issuerHost })).status).toBe(200);
    const rebound = await post(server.issuer, list, { host: issuerHost, 'x-forwarded-host': 'evil.example' });
    expect(rebound.status).toBe(403);
    expect(rebound.body).toEqual(refusal(`Invalid Host header: evil.example. This MCP server answers only at ${issuerHost}.`));
  });
});
