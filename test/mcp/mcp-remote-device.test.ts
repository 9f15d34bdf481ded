import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, launchChromium, noteSkippedBrowserTests } from '../helpers/chromium.ts';
import { killAllStarted, startTracked } from '../helpers/child-process.ts';
import { DEVICE_GRANT } from '../helpers/device.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { seedSchool, type Seeded } from '../helpers/mcp.ts';
import { freePort } from '../helpers/server.ts';
import { StdioRpc } from '../helpers/stdio-rpc.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const MCP_REMOTE = join(ROOT, 'node_modules/mcp-remote/dist/proxy.js');
// Sign-in in the browser, then mcp-remote's first poll after its 5 s interval.
const RPC_TIMEOUT_MS = 45_000;

const kind = STORE_KINDS[0]!;
noteSkippedBrowserTests('mcp-remote-device.test.ts');

/**
 * `npx mcp-remote <issuer>/mcp --device-code`, as an agent in an SSH
 * session runs it: no browser on its machine. It registers a device client,
 * prints the verification link, and polls; a person opens the link in a
 * real browser (Chromium) elsewhere, signs in, checks the code and allows.
 */
describe.skipIf(!haveChromium)(`mcp-remote --device-code (${kind})`, () => {
  let server: FlowServer;
  let seeded: Seeded;
  let dir: string;
  let child: ChildProcess;
  let rpc: StdioRpc;
  let browser: Browser;
  let stderr = '';

  beforeAll(async () => {
    server = await startFlowServer(kind);
    seeded = await seedSchool(server);
    browser = await launchChromium();
    dir = mkdtempSync(join(tmpdir(), 'lyceum-mcp-remote-device-'));
    mkdirSync(join(dir, 'home'));
    child = startTracked(process.execPath, [MCP_REMOTE, `${server.issuer}/mcp`, String(await freePort()), '--device-code'], {
      cwd: dir,
      // No BROWSER: nothing on this machine may open one.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: join(dir, 'home'), MCP_REMOTE_CONFIG_DIR: join(dir, 'config') },
    });
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    rpc = new StdioRpc(child);
  });
  afterAll(async () => {
    await killAllStarted();
    await browser?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The person: opens the link mcp-remote printed, signs in, checks the code, allows. */
  async function approveInBrowser(): Promise<string> {
    const deadline = Date.now() + RPC_TIMEOUT_MS;
    const printedLink = () => /(http:\/\/\S+\/oauth\/device\?user_code=(\S+))/.exec(stderr);
    while (!printedLink() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const link = printedLink();
    if (!link) throw new Error(`mcp-remote printed no verification link:\n${stderr}`);
    const page = await browser.newPage();
    try {
      await page.goto(link[1]!);
      await page.fill('#email', server.user.email);
      await page.fill('#password', server.user.password);
      await page.click('button[type=submit]');
      await page.waitForURL(/\/oauth\/device\?user_code=/);
      expect(await page.inputValue('#user_code')).toBe(link[2]);
      await page.click('button[type=submit]');
      await page.getByText('a device elsewhere').waitFor();
      await page.click('button[value=approve]');
      await page.getByRole('heading', { name: 'Device connected' }).waitFor();
      return link[2]!;
    } finally {
      await page.close();
    }
  }

  it('a tool call that needs a sign-in: the device flow runs, the person approves in a browser, and the call answers', async () => {
    const init = await rpc.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'lyceum-device-test', version: '1.0.0' } }, RPC_TIMEOUT_MS);
    expect(init.error).toBeUndefined();
    rpc.notify('notifications/initialized');
    const call = rpc.request('tools/call', { name: 'list_records', arguments: { area: 'students', limit: 50 } }, RPC_TIMEOUT_MS);
    const userCode = await approveInBrowser();
    const answer = await call;
    expect(answer.error, `${JSON.stringify(answer.error)}\n${stderr}`).toBeUndefined();
    const { structuredContent } = answer.result as { structuredContent: { records: { id: string }[] } };
    expect(structuredContent.records.map((s) => s.id)).toEqual(seeded.students.map((s) => s.id));
    expect(stderr).toContain(userCode);

    // The client it registered: the device grant, never the code grant; the person's connected apps list it.
    const [grant] = await server.deps.store.grants.listForUser(server.user.id);
    const client = await server.deps.store.clients.find(grant!.clientId);
    expect(client!.metadata).toMatchObject({ grant_types: ['refresh_token', DEVICE_GRANT], response_types: [] });
  });
});
