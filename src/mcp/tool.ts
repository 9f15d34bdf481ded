import type { z } from 'zod';
import type { FastifyBaseLogger } from 'fastify';
import type { Deps } from '../deps.ts';
import type { Scope } from '../access/scopes.ts';
import type { RecordService } from '../platform/records.ts';
import type { Caller } from '../resource/guard.ts';
import type { ToolsetName } from './toolsets.ts';

export interface ToolContext {
  deps: Deps;
  records: RecordService;
  caller: Caller;
  log: FastifyBaseLogger;
  /** Learners are shown by pseudonyms in this call (the option, or the school's setting). */
  pseudonymized?: boolean;
}

/**
 * What a tool returns: structured content, and a short readable summary. The
 * server sends the summary followed by the structured content as JSON in the
 * text block, so a client that shows the model only the text loses nothing.
 */
export interface ToolResult {
  structured: Record<string, unknown>;
  text: string;
}

/**
 * One MCP tool. `scopes` empty: a catalog tool anyone may call. Otherwise the
 * caller's token must hold every scope, checked by the bearer guard before
 * the call reaches the MCP server (so a missing scope is an HTTP 403 that
 * clients can step up from, not a JSON-RPC error).
 */
export interface ToolDef<Shape extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  /** The toolset that lists it (toolsets.ts); a call works whatever toolsets the caller chose. */
  toolset: ToolsetName;
  scopes: readonly Scope[];
  /**
   * Scopes the tool does not need but shows more with (the full view of an
   * area that anyone may read): listed in the MCP protected-resource metadata
   * with `scopes`, so a client that asks for them all gets that view.
   */
  optionalScopes?: readonly Scope[];
  /**
   * The input's shape. Unknown arguments are refused, naming the ones the
   * tool takes.
   */
  input: Shape;
  /**
   * Scopes a call needs beyond `scopes`, read from its raw arguments (not yet
   * validated, so any value may arrive): create_webhook needs the read scope
   * of every event it subscribes to, get_record the read scope of the area
   * its id names. The route's guard checks them before the call, so a
   * missing one is an HTTP 403 a client can step up from.
   */
  argumentScopes?: (args: unknown) => readonly Scope[];
  /**
   * Whether some caller may use it at all: a tool over several areas is
   * listed only when one of them is open to the caller (tool-list.ts).
   */
  listedFor?: (access: ToolAccess) => ToolDef | undefined;
  /** It can show learners' names and emails, so it takes the `pseudonymize` option. */
  showsLearners?: boolean;
  /** Read-only tools are marked so clients may call them without confirmation. */
  readOnly: boolean;
  /**
   * A write that removes something (MCP destructiveHint): what a call would
   * remove, named for the question put to the person before it runs
   * (confirmation.ts) and for the activity log. Absent: not destructive.
   */
  destroys?: (args: Record<string, unknown>) => Removal;
  /** Calling it again with the same arguments changes nothing more (MCP idempotentHint); absent: as readOnly. */
  idempotent?: boolean;
  run(ctx: ToolContext, args: z.infer<z.ZodObject<Shape>>): Promise<ToolResult>;
}

/** What a list is built for: the scopes granted (none when anonymous) and the toolsets chosen. */
export interface ToolAccess {
  anonymous: boolean;
  scopes: ReadonlySet<Scope>;
  toolsets: ReadonlySet<ToolsetName>;
  readOnly: boolean;
}

/** What a destructive call would remove: a record, by type and id, and how the question names it. */
export interface Removal {
  recordType: string;
  recordId: string;
  label: string;
}

export const defineTool = <Shape extends z.ZodRawShape>(def: ToolDef<Shape>): ToolDef => def as unknown as ToolDef;
