import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAllStarted, startTracked } from '../helpers/child-process.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { seedSchool, type Seeded } from '../helpers/mcp.ts';
import { freePort } from '../helpers/server.ts';
import { StdioRpc } from '../helpers/stdio-rpc.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const MCP_REMOTE = join(ROOT, 'node_modules/mcp-remote/dist/proxy.js');
const FAKE_BROWSER = join(ROOT, 'test/helpers/fake-browser.ts');
const RPC_TIMEOUT_MS = 25_000;

// The client is what is under test, not the store: one store is enough.
const kind = STORE_KINDS[0]!;

/**
 * mcp-remote, the stdio-to-HTTP bridge desktop MCP hosts start, against /mcp:
 * it registers with its default redirect URI http://localhost:<port>/oauth/callback,
 * opens the authorization URL in "the browser" (here $BROWSER, which xdg-open
 * runs: a script that signs in and approves), and then answers a host's
 * JSON-RPC on its stdio with the signed-in person's token.
 */
describe(`mcp-remote (${kind})`, () => {
  let server: FlowServer;
  let seeded: Seeded;
  let dir: string;
  let browserLog: string;
  let callbackPort: number;
  let child: ChildProcess;
  let rpc: StdioRpc;
  let stderr = '';

  beforeAll(async () => {
    server = await startFlowServer(kind);
    seeded = await seedSchool(server);
    dir = mkdtempSync(join(tmpdir(), 'lyceum-mcp-remote-'));
    browserLog = join(dir, 'browser.log');
    mkdirSync(join(dir, 'home'));
    const browser = join(dir, 'browser');
    // xdg-open runs $BROWSER with the URL; tsx is resolved from the repository.
    writeFileSync(browser, `#!/bin/sh\ncd '${ROOT}' && exec '${process.execPath}' --import tsx '${FAKE_BROWSER}' "$1"\n`);
    chmodSync(browser, 0o755);
    callbackPort = await freePort();
    child = startTracked(process.execPath, [MCP_REMOTE, `${server.issuer}/mcp`, String(callbackPort)], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: join(dir, 'home'),
        MCP_REMOTE_CONFIG_DIR: join(dir, 'config'),
        BROWSER: browser,
        FAKE_BROWSER_EMAIL: server.user.email,
        FAKE_BROWSER_PASSWORD: server.user.password,
        FAKE_BROWSER_LOG: browserLog,
      },
    });
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    rpc = new StdioRpc(child);
  });
  afterAll(async () => {
    await killAllStarted();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** What the fake browser did for each URL it was asked to open. */
  const opened = (): { url: string; redirect?: string; status?: number; error?: string }[] =>
    existsSync(browserLog)
      ? readFileSync(browserLog, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { url: string })
      : [];

  /** One JSON-RPC request through mcp-remote's stdio: its result, or a failure that shows mcp-remote's log. */
  async function request(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const answer = await rpc.request(method, params, RPC_TIMEOUT_MS).catch((e: unknown) => {
      throw new Error(`${String(e)}\nmcp-remote stderr:\n${stderr}\nbrowser: ${JSON.stringify(opened())}`);
    });
    expect(answer.error, `${method}: ${JSON.stringify(answer.error)}\n${stderr}`).toBeUndefined();
    return answer.result!;
  }

  it('initialize and tools/list pass through anonymously: no sign-in yet', async () => {
    const init = await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'lyceum-host-test', version: '1.0.0' } });
    expect(init.serverInfo).toMatchObject({ name: 'lyceum' });
    rpc.notify('notifications/initialized');
    const { tools } = (await request('tools/list')) as { tools: { name: string }[] };
    // The anonymous list: the catalog and sign_in, the way in.
    expect(tools.map((t) => t.name)).toEqual(['get_site_info', 'get_course', 'list_records', 'get_record', 'sign_in']);
    expect(opened()).toEqual([]);
  });

  it('listing students: the 401 makes mcp-remote register with http://localhost:<port>/oauth/callback, open the browser, and the call answers', async () => {
    const { structuredContent } = (await request('tools/call', { name: 'list_records', arguments: { area: 'students', limit: 50 } })) as { structuredContent: { records: { id: string }[] } };
    expect(structuredContent.records.map((s) => s.id)).toEqual(seeded.students.map((s) => s.id));

    const visits = opened();
    expect(visits, `the browser was opened for: ${JSON.stringify(visits)}`).toHaveLength(1);
    const [visit] = visits;
    const url = new URL(visit!.url);
    const redirectUri = `http://localhost:${callbackPort}/oauth/callback`;
    expect(url.origin + url.pathname).toBe(`${server.issuer}/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ response_type: 'code', redirect_uri: redirectUri, code_challenge_method: 'S256', resource: `${server.issuer}/mcp` });
    // Sign-in and consent ended at mcp-remote's own listener, which took the code.
    const redirect = new URL(visit!.redirect!);
    expect(redirect.origin + redirect.pathname, visit!.error).toBe(redirectUri);
    expect(redirect.searchParams.get('iss')).toBe(server.issuer);
    expect(redirect.searchParams.get('state')).toBe(url.searchParams.get('state'));
    expect(visit!.status).toBe(200);

    // The client mcp-remote registered is a public native app with exactly that loopback redirect URI.
    const client = await server.deps.store.clients.find(url.searchParams.get('client_id')!);
    expect(client).toMatchObject({ secretHash: null, metadata: { redirect_uris: [redirectUri], token_endpoint_auth_method: 'none', application_type: 'native' } });
  });

  it('later calls use the same token: get_my_account answers the signed-in person, without another sign-in', async () => {
    const { structuredContent } = (await request('tools/call', { name: 'get_my_account', arguments: {} })) as { structuredContent: Record<string, unknown> };
    expect(structuredContent).toMatchObject({ id: server.user.id, email: server.user.email, role: 'owner' });
    expect(opened(), JSON.stringify(opened())).toHaveLength(1);
  });
});
