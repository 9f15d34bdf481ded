import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';
import type { Deps } from '../deps.ts';
import type { Scope } from '../access/scopes.ts';
import type { RecordService } from '../platform/records.ts';
import type { Caller } from '../resource/guard.ts';

export interface ToolContext {
  deps: Deps;
  records: RecordService;
  caller: Caller;
  log: FastifyBaseLogger;
  /** Learners are shown by pseudonyms in this call (the option, or the school's setting). */
  pseudonymized?: boolean;
}

/** What a tool returns: structured content, plus the readable text form MCP clients show. */
export interface ToolResult {
  structured: Record<string, unknown>;
  text: string;
}

/**
 * One MCP tool. `scopes` empty: an anonymous catalog tool. Otherwise the
 * caller's token must hold every scope, checked by the bearer guard before
 * the call reaches the MCP server (so a missing scope is an HTTP 403 that
 * clients can step up from, not a JSON-RPC error).
 */
/** The zod namespace a tool builds its input's shape with. */
export type Zod = typeof z;

export interface ToolDef<Shape extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  scopes: readonly Scope[];
  /**
   * Scopes the tool does not need but shows more with (the full view of an
   * area that anyone may read): listed in the MCP protected-resource metadata
   * with `scopes`, so a client that asks for them all gets that view.
   */
  optionalScopes?: readonly Scope[];
  /**
   * The input's shape, built from the zod it is given. zod is loaded with the
   * MCP SDK on the first /mcp request (sdk.ts), so the tools, which the
   * server lists at start for their scopes, keep it out of every start.
   */
  input: (zod: Zod) => Shape;
  /**
   * The shape of the structured content every successful call answers, built
   * the same way. It is listed as the tool's outputSchema, and the SDK checks
   * each answer against it.
   */
  output: (zod: Zod) => z.ZodRawShape;
  /**
   * Scopes a call needs beyond `scopes`, read from its raw arguments (not yet
   * validated, so any value may arrive): create_webhook needs the read scope
   * of every event it subscribes to. The route's guard checks them before the
   * call, so a missing one is an HTTP 403 a client can step up from.
   */
  argumentScopes?: (args: unknown) => readonly Scope[];
  /** Read-only tools are marked so clients may call them without confirmation. */
  readOnly: boolean;
  /** A write that removes something (MCP destructiveHint); absent: false. */
  destructive?: boolean;
  /** Calling it again with the same arguments changes nothing more (MCP idempotentHint); absent: as readOnly. */
  idempotent?: boolean;
  run(ctx: ToolContext, args: z.infer<z.ZodObject<Shape>>): Promise<ToolResult>;
}

export const defineTool = <Shape extends z.ZodRawShape>(def: ToolDef<Shape>): ToolDef => def as unknown as ToolDef;
