/**
 * What each kind of caller finds at /mcp: its tools/list (how many tools,
 * how many bytes, the largest definition), read over real HTTP.
 * scripts/mcp-targets.ts prints the same figures from the list builder.
 */
import { ROLE_SCOPES, type Role } from '../../src/access/roles.ts';
import type { FlowServer } from './flow.ts';
import { mcpPost, resultOf, rpc } from './mcp.ts';
import { tokenSource } from './records.ts';

export interface ListedSize {
  tools: string[];
  bytes: number;
  largest: { name: string; bytes: number };
}

/** A token with every scope the role may hold, for a new person of that role. */
export async function roleToken(server: FlowServer, role: Role): Promise<string> {
  const user = role === 'owner' ? server.user : await server.addUser(role);
  return tokenSource(server, user, 1)(ROLE_SCOPES[role].join(' '));
}

export async function listFor(issuer: string, token?: string, headers: Record<string, string> = {}): Promise<ListedSize> {
  const res = await mcpPost(issuer, rpc('tools/list'), { ...(token ? { authorization: `Bearer ${token}` } : {}), headers });
  const tools = resultOf(res).tools as { name: string }[];
  const sizes = tools.map((t) => ({ name: t.name, bytes: Buffer.byteLength(JSON.stringify(t)) })).sort((a, b) => b.bytes - a.bytes);
  return { tools: tools.map((t) => t.name), bytes: Buffer.byteLength(JSON.stringify(tools)), largest: sizes[0] ?? { name: '-', bytes: 0 } };
}
