import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAllStarted, nodeAtLeast, runBounded, type RunResult } from '../helpers/child-process.ts';
import { obtainTokens, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { seedSchool, type Seeded } from '../helpers/mcp.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const INSPECTOR = join(ROOT, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
/** The Inspector's own `engines` floor. */
const INSPECTOR_NODE: [number, number] = [22, 19];
const RUN_TIMEOUT_MS = 30_000;
/** Fetching a Node.js through npx (on a Node.js older than the Inspector's floor) may take a while the first time. */
const NODE_FETCH_TIMEOUT_MS = 120_000;

// The client is what is under test, not the store: one store is enough.
const kind = STORE_KINDS[0]!;

/**
 * The MCP Inspector's CLI mode (`mcp-inspector --cli`) against /mcp over real
 * HTTP: anonymously it lists the tools and calls a catalog tool; with a bearer
 * token given by --header it calls a scoped tool.
 */
describe(`the MCP Inspector CLI (${kind})`, () => {
  let server: FlowServer;
  let seeded: Seeded;
  let node: string;
  let home: string;

  beforeAll(async () => {
    [server, node] = await Promise.all([startFlowServer(kind), nodeAtLeast(INSPECTOR_NODE, 22, NODE_FETCH_TIMEOUT_MS)]);
    seeded = await seedSchool(server);
    home = mkdtempSync(join(tmpdir(), 'lyceum-inspector-'));
  }, NODE_FETCH_TIMEOUT_MS + 30_000);
  afterAll(async () => {
    await killAllStarted();
    await server?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  /** One Inspector CLI run against /mcp, its catalog and stored state in a fresh home; never an interactive sign-in. */
  function inspector(args: string[]): Promise<RunResult> {
    return runBounded(node, [INSPECTOR, '--cli', `${server.issuer}/mcp`, '--transport', 'http', '--format', 'json', '--quiet', '--stored-auth-only', ...args], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        MCP_CATALOG_PATH: join(home, 'mcp.json'),
        MCP_CLIENT_CONFIG_PATH: join(home, 'client.json'),
        NO_COLOR: '1',
      },
      timeoutMs: RUN_TIMEOUT_MS,
    });
  }

  /** The `result` of a run that succeeded: with --format json, stdout is one `{"result": ...}` object. */
  function resultOf(run: RunResult): Record<string, unknown> {
    expect({ code: run.code, timedOut: run.timedOut }, `${run.stdout}\n${run.stderr}`).toEqual({ code: 0, timedOut: false });
    const out = JSON.parse(run.stdout) as { result?: Record<string, unknown> };
    expect(Object.keys(out)).toEqual(['result']);
    return out.result!;
  }

  /** The error of a run that failed: exit code 3 (auth) and one `{"error": {code, message}}` object on stderr. */
  function authErrorOf(run: RunResult): { code: string; message: string } {
    expect({ code: run.code, timedOut: run.timedOut, stdout: run.stdout }, run.stderr).toEqual({ code: 3, timedOut: false, stdout: '' });
    return (JSON.parse(run.stderr) as { error: { code: string; message: string } }).error;
  }

  it('anonymously: tools/list lists the catalog and sign_in; with a token, what the token opens', async () => {
    const run = await inspector(['--method', 'tools/list']);
    expect((resultOf(run).tools as { name: string }[]).map((t) => t.name)).toEqual(['get_site_info', 'get_course', 'list_records', 'get_record', 'sign_in']);
    const { tokens } = await obtainTokens(server, { scope: 'students:read', resource: `${server.issuer}/mcp` });
    const signedIn = await inspector(['--header', `Authorization: Bearer ${tokens.access_token}`, '--header', 'X-MCP-Toolsets: students', '--method', 'tools/list']);
    expect((resultOf(signedIn).tools as { name: string }[]).map((t) => t.name)).toEqual(['list_records', 'get_record', 'get_course_progress']);
  });

  it('anonymously: tools/call get_site_info answers with the school', async () => {
    const run = await inspector(['--method', 'tools/call', '--tool-name', 'get_site_info']);
    expect(resultOf(run).structuredContent).toMatchObject({ published_courses: seeded.courses.published.length, links: { authentication: `${server.issuer}/auth.md` } });
  });

  it("anonymously: a scoped tool is refused with the server's 401 and where to sign in", async () => {
    const error = authErrorOf(await inspector(['--method', 'tools/call', '--tool-name', 'list_records', '--tool-arg', 'area=students']));
    expect(error.code).toBe('auth_required');
    expect(error.message).toContain('"error":"invalid_request"');
    expect(error.message).toContain(`${server.issuer}/.well-known/oauth-protected-resource/mcp`);
  });

  it('with a bearer token without students:read: listing students is refused as insufficient_scope', async () => {
    const { tokens } = await obtainTokens(server, { scope: 'orders:read', resource: `${server.issuer}/mcp` });
    const run = await inspector(['--header', `Authorization: Bearer ${tokens.access_token}`, '--method', 'tools/call', '--tool-name', 'list_records', '--tool-arg', 'area=students']);
    // The CLI reads the scope from the 403's WWW-Authenticate challenge; with a fixed header it cannot step up.
    expect({ code: run.code, timedOut: run.timedOut, stdout: run.stdout }, run.stderr).toEqual({ code: 1, timedOut: false, stdout: '' });
    expect(JSON.parse(run.stderr)).toEqual({ error: { code: 'error', message: 'Insufficient scope: required "students:read"' } });
  });

  it('with a bearer token by --header: listing students answers with the students', async () => {
    const { tokens } = await obtainTokens(server, { scope: 'students:read', resource: `${server.issuer}/mcp` });
    const run = await inspector([
      '--header',
      `Authorization: Bearer ${tokens.access_token}`,
      '--method',
      'tools/call',
      '--tool-name',
      'list_records',
      '--tool-arg',
      'area=students',
      '--tool-arg',
      'limit=50',
    ]);
    expect((resultOf(run).structuredContent as { records: { id: string }[] }).records.map((s) => s.id)).toEqual(seeded.students.map((s) => s.id));
  });
});
