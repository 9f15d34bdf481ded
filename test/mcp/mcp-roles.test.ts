import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Role } from '../../src/access/roles.ts';
import { parseChallenge } from '../helpers/bearer.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { mcpPost, mcpPrm, recordingFetch, seedSchool, toolCall, type Seeded } from '../helpers/mcp.ts';
import { InMemoryOAuthProvider } from '../helpers/mcp-oauth-provider.ts';
import { freePort } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { UserAgent } from '../helpers/user-agent.ts';

type CallResult = { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

interface Connected {
  user: { email: string; password: string; id: string };
  provider: InMemoryOAuthProvider;
  client: Client;
  /** The authorization URL the SDK made from the PRM. */
  authorizationUrl: URL;
}

/**
 * One person of each kind signs in through the MCP SDK client's own OAuth
 * flow, the client asking for every scope the PRM of /mcp lists: the grant is
 * what the person's role allows of it (auth.md, "Roles"), a tool
 * within the grant answers, and one beyond it is 403 insufficient_scope.
 */
describe.each(STORE_KINDS)('MCP sign-in by role (%s)', (kind) => {
  let server: FlowServer;
  let seeded: Seeded;
  let scopesSupported: string[];
  const connected: Connected[] = [];

  beforeAll(async () => {
    server = await startFlowServer(kind);
    seeded = await seedSchool(server);
    scopesSupported = (await mcpPrm(server.issuer)).scopes_supported;
  });
  afterAll(async () => {
    for (const c of connected) await c.client.close();
    await server?.stop();
  });

  const sorted = (scope: string | undefined) => (scope ?? '').split(' ').filter(Boolean).sort();

  /** A new user of this role completes the SDK client's flow in the (HTTP-only) browser. */
  async function connectAs(role: Role): Promise<Connected> {
    const user = await server.addUser(role);
    const provider = new InMemoryOAuthProvider({ port: await freePort(), withState: true });
    const traffic = recordingFetch();
    const transport = new StreamableHTTPClientTransport(new URL(`${server.issuer}/mcp`), { authProvider: provider, fetch: traffic.fetch });
    const client = new Client({ name: `lyceum-${role}-test`, version: '1.0.0' });
    await client.connect(transport);
    await vi.waitFor(() => expect(traffic.log.some((e) => e.method === 'GET')).toBe(true));
    await expect(client.callTool({ name: 'get_my_account', arguments: {} })).rejects.toBeInstanceOf(UnauthorizedError);
    const authorizationUrl = provider.lastAuthorizationUrl();
    const callback = await new UserAgent(server.issuer).authorize(authorizationUrl.href, user);
    expect(callback.searchParams.get('error'), callback.href).toBeNull();
    await transport.finishAuth(callback.searchParams.get('code')!);
    const c = { user, provider, client, authorizationUrl };
    connected.push(c);
    return c;
  }

  async function call(c: Connected, name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const result = (await c.client.callTool({ name, arguments: args })) as CallResult;
    expect(result.isError ?? false, `${name}: ${JSON.stringify(result.content)}`).toBe(false);
    return result.structuredContent!;
  }

  /** The server's answer to this token calling a tool beyond its grant: exactly 403 insufficient_scope naming the scope. */
  async function expectForbidden(c: Connected, name: string, args: Record<string, unknown> | string, scope?: string) {
    if (typeof args === 'string') [args, scope] = [{}, args];
    const res = await mcpPost(server.issuer, toolCall(name, args), { authorization: `Bearer ${c.provider.tokens()!.access_token}` });
    expect({ status: res.status, body: res.json }, res.text).toEqual({ status: 403, body: { error: 'insufficient_scope', error_description: expect.stringMatching(/\S/) } });
    expect(parseChallenge(res.headers.get('www-authenticate')).params).toMatchObject({ error: 'insufficient_scope', scope });
  }

  it('staff (an admin): the client asks for every scope the PRM lists and is granted all but members:write; list_students and list_orders answer', async () => {
    const admin = await connectAs('admin');
    expect(sorted(admin.authorizationUrl.searchParams.get('scope')!)).toEqual([...scopesSupported].sort());
    expect(scopesSupported).toEqual(expect.arrayContaining(['students:read', 'orders:read', 'analytics:read', 'courses:write']));
    // Only the owner may change who the team is.
    expect(sorted(admin.provider.tokens()!.scope)).toEqual(scopesSupported.filter((s) => s !== 'members:write').sort());
    expect(scopesSupported).toContain('members:write');
    const students = await call(admin, 'list_records', { area: 'students', limit: 50 });
    expect((students.records as { id: string }[]).map((s) => s.id)).toEqual(seeded.students.map((s) => s.id));
    const orders = await call(admin, 'list_records', { area: 'orders' });
    expect((orders.records as { id: string }[]).map((o) => o.id)).toEqual(seeded.orders);
    expect(await call(admin, 'get_my_account')).toMatchObject({ id: admin.user.id, role: 'admin' });
  });

  it("a lecturer: granted only the lecturer's part; list_students answers, list_orders and get_analytics are 403", async () => {
    const lecturer = await connectAs('lecturer');
    expect(sorted(lecturer.authorizationUrl.searchParams.get('scope')!)).toEqual([...scopesSupported].sort());
    expect(sorted(lecturer.provider.tokens()!.scope)).toEqual([
      'account:read',
      'account:write',
      'comments:read',
      'courses:read',
      'courses:write',
      'curriculum:read',
      'curriculum:write',
      'digital_products:read',
      'events:read',
      'events:write',
      'forms:read',
      'lecturers:read',
      'membership_plans:read',
      'pages:read',
      'posts:read',
      'posts:write',
      'storage:write',
      'students:read',
    ]);
    const students = await call(lecturer, 'list_records', { area: 'students', limit: 50 });
    expect((students.records as { id: string }[]).map((s) => s.id)).toEqual(seeded.students.map((s) => s.id));
    expect(await call(lecturer, 'get_my_account')).toMatchObject({ id: lecturer.user.id, role: 'lecturer' });
    await expectForbidden(lecturer, 'list_records', { area: 'orders' }, 'orders:read');
    await expectForbidden(lecturer, 'get_analytics', 'analytics:read');
  });

  it('a student: granted account:read account:write only; get_my_account and get_site_info answer, list_students is 403', async () => {
    const student = await connectAs('student');
    expect(student.provider.tokens()!.scope).toBe('account:read account:write');
    expect(await call(student, 'get_my_account')).toMatchObject({ id: student.user.id, email: student.user.email, role: 'student' });
    expect(await call(student, 'get_site_info')).toMatchObject({ published_courses: seeded.courses.published.length });
    await expectForbidden(student, 'list_records', { area: 'students' }, 'students:read');
    await expectForbidden(student, 'list_records', { area: 'orders' }, 'orders:read');
  });
});
