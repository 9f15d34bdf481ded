import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { z } from 'zod';
import { logError } from '../http/error-handler.ts';
import { httpError, HttpError } from '../http/http-error.ts';
import { answerSetLevel } from './logging.ts';
import { registerPrompts } from './prompts.ts';
import { pseudonymizeOption, withPseudonyms } from './pseudonymous-records.ts';
import { registerResources, type McpDocuments } from './resources.ts';
import { loadMcpSdk } from './sdk.ts';
import type { ToolContext, ToolDef, Zod } from './tool.ts';
import { TOOLS } from './tools/index.ts';

export const TOOL_TIMEOUT_MS = 10_000;

/** Whether the caller may call the tool: catalog tools anyone, the rest with every scope they name. */
export function canUse(tool: ToolDef, ctx: ToolContext): boolean {
  if (tool.scopes.length === 0) return true;
  return ctx.caller.kind === 'token' && tool.scopes.every((s) => (ctx.caller.kind === 'token' ? ctx.caller.scopes.has(s) : false));
}

/**
 * Each tool's input and output shapes, built once from the loaded zod and shared by every
 * request's server; the input gets the `pseudonymize` option every tool takes.
 */
const shapes = new WeakMap<ToolDef, { input: z.ZodRawShape; output: z.ZodRawShape }>();

function shapesOf(tool: ToolDef, zod: Zod): { input: z.ZodRawShape; output: z.ZodRawShape } {
  let built = shapes.get(tool);
  if (!built) shapes.set(tool, (built = { input: { ...tool.input(zod), pseudonymize: pseudonymizeOption(zod) }, output: tool.output(zod) }));
  return built;
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
 * runs the tools this caller may use, and serves the public resources and
 * the prompts. Tool failures become tool results with isError, never
 * transport errors.
 */
export async function buildMcpServer(ctx: ToolContext, version: string, documents: McpDocuments): Promise<McpServer> {
  const sdk = await loadMcpSdk();
  const { McpServer, z: zod } = sdk;
  const server = new McpServer(
    { name: 'lyceum', title: 'Lyceum school catalog', version },
    {
      // MCP logging: "Servers that emit log message notifications MUST declare the logging
      // capability"; clients send logging/setLevel only to a server that declares it.
      capabilities: { logging: {} },
      instructions:
        'Every tool is listed to every caller. Catalog tools need no sign-in. The others name the scopes they need: calling one without an OAuth access token for this MCP endpoint answers HTTP 401, and with a token that lacks a scope HTTP 403 naming the scopes to ask for; see /.well-known/oauth-protected-resource/mcp. Resources (the data model, the OpenAPI document, auth.md, published courses as lyceum://courses/{id}) are public and need no sign-in. Every tool takes pseudonymize: true to show students by stable pseudonyms instead of names and emails; a school can make that the rule for every call.',
    },
  );
  // Every tool is listed to every caller, signed in or not, so that an agent
  // sees what signing in would let it do and is led to sign in by the 401 of
  // a call; the bearer guard in front of this server checks each call's scopes.
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.scopes.length ? `${tool.description} (scope: ${tool.scopes.join(' ')})` : tool.description,
        inputSchema: shapesOf(tool, zod).input,
        outputSchema: shapesOf(tool, zod).output,
        annotations: { readOnlyHint: tool.readOnly, destructiveHint: tool.destructive ?? false, idempotentHint: tool.idempotent ?? tool.readOnly, openWorldHint: false },
      },
      async (args: Record<string, unknown>) => {
        // The guard has already answered 401 or 403 to a call without the scopes; this keeps a
        // server built for another caller from ever running a tool beyond its token.
        if (!canUse(tool, ctx)) return { content: [{ type: 'text' as const, text: `This tool needs the scope ${tool.scopes.join(' ')}.` }], isError: true };
        try {
          const { pseudonymize, ...input } = args;
          const result = await withTimeout(withPseudonyms(ctx, pseudonymize).then((callCtx) => tool.run(callCtx, input as never)), TOOL_TIMEOUT_MS);
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
  answerSetLevel(server, sdk);
  registerResources(server, ctx, documents, sdk);
  registerPrompts(server, ctx, sdk);
  // The tools, resources and prompts are the same for every caller and never change while the
  // server runs, and a stateless server has no stream to announce a change or a resource update
  // on: say so rather than the SDK's defaults (listChanged true).
  server.server.registerCapabilities({ tools: { listChanged: false }, resources: { subscribe: false, listChanged: false }, prompts: { listChanged: false } });
  return server;
}
