import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { z } from 'zod';
import { logError } from '../http/error-handler.ts';
import { httpError, HttpError } from '../http/http-error.ts';
import { loadMcpSdk } from './sdk.ts';
import type { ToolContext, ToolDef, Zod } from './tool.ts';
import { TOOLS } from './tools/index.ts';

export const TOOL_TIMEOUT_MS = 10_000;

/** Whether the caller may see and call the tool: catalog tools for everyone, the rest by scope. */
export function canUse(tool: ToolDef, ctx: ToolContext): boolean {
  if (tool.scopes.length === 0) return true;
  return ctx.caller.kind === 'token' && tool.scopes.every((s) => (ctx.caller.kind === 'token' ? ctx.caller.scopes.has(s) : false));
}

/** Each tool's input shape, built once from the loaded zod and shared by every request's server. */
const inputShapes = new WeakMap<ToolDef, z.ZodRawShape>();

function inputShape(tool: ToolDef, zod: Zod): z.ZodRawShape {
  let shape = inputShapes.get(tool);
  if (!shape) inputShapes.set(tool, (shape = tool.input(zod)));
  return shape;
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(httpError('server_error', `The tool did not finish within ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * An MCP server for one request (the transport is stateless): it lists and
 * runs the tools this caller may use. Tool failures become tool results with
 * isError, never transport errors.
 */
export async function buildMcpServer(ctx: ToolContext, version: string): Promise<McpServer> {
  const { McpServer, z: zod } = await loadMcpSdk();
  const server = new McpServer(
    { name: 'lyceum', title: 'Lyceum school catalog', version },
    { instructions: 'Catalog tools need no sign-in. Tools about students, orders, analytics or changes need an OAuth access token for this MCP endpoint; see /.well-known/oauth-protected-resource/mcp.' },
  );
  for (const tool of TOOLS) {
    if (!canUse(tool, ctx)) continue;
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.scopes.length ? `${tool.description} (scope: ${tool.scopes.join(' ')})` : tool.description,
        inputSchema: inputShape(tool, zod),
        annotations: { readOnlyHint: tool.readOnly, openWorldHint: false },
      },
      async (args: Record<string, unknown>) => {
        try {
          const result = await withTimeout(tool.run(ctx, args as never), TOOL_TIMEOUT_MS);
          return { content: [{ type: 'text' as const, text: result.text }], structuredContent: result.structured };
        } catch (err) {
          // As on every route, the client reads the description; a detail or a cause goes to the log only.
          const message = err instanceof HttpError ? err.description : 'The tool failed; try again later.';
          if (err instanceof HttpError) logError(ctx.log.child({ tool: tool.name }), err);
          else ctx.log.error({ err, tool: tool.name }, 'MCP tool failed');
          return { content: [{ type: 'text' as const, text: message }], isError: true };
        }
      },
    );
  }
  return server;
}
