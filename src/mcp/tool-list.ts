import { confirmDestructive } from './confirmation.ts';
import { logActivity } from '../activity/record.ts';
import type { InputRequiredResult, ServerContext } from '@modelcontextprotocol/server';
import { actingAs } from '../activity/acting.ts';
import { z } from 'zod';
import type { Scope } from '../access/scopes.ts';
import { logError } from '../http/errors/error-handler.ts';
import { httpError, HttpError } from '../http/errors/http-error.ts';
import { jsonSchemaOf } from '../http/routes/route-docs.ts';
import type { Caller } from '../resource/guard.ts';
import { ANSWER_MAX_CHARS } from './answer-limit.ts';
import { checkArguments } from './arguments.ts';
import { closest } from '../http/requests/input-issues.ts';
import { pseudonymizeOption, withPseudonyms } from './pseudonymous-records.ts';
import { defaultToolsets, type ToolsetName } from './toolsets.ts';
import type { Removal, ToolAccess, ToolContext, ToolDef } from './tool.ts';
import { TOOLS, toolByName } from './tools/index.ts';

export const TOOL_TIMEOUT_MS = 10_000;

/** Scopes that only concern the caller's own identity and account: a token with nothing else is a learner's. */
const OWN_SCOPES: ReadonlySet<Scope> = new Set<Scope>(['openid', 'profile', 'email', 'account:read', 'account:write']);

/** The access a list is built for: the token's scopes, and the toolsets chosen or, without a choice, the caller's defaults. */
export function toolAccess(caller: Caller, chosen: ToolsetName[] | 'default', readOnly: boolean): ToolAccess {
  const anonymous = caller.kind !== 'token';
  const scopes: ReadonlySet<Scope> = caller.kind === 'token' ? caller.scopes : new Set();
  const staff = [...scopes].some((s) => !OWN_SCOPES.has(s));
  return { anonymous, scopes, toolsets: new Set(chosen === 'default' ? defaultToolsets(anonymous, staff) : chosen), readOnly };
}

/** One entry of tools/list. */
export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object' } & Record<string, unknown>;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}

/** The tools a caller's list holds, in TOOLS order: the ones its toolsets name and its scopes allow. */
export function listedTools(access: ToolAccess): ToolDef[] {
  const out: ToolDef[] = [];
  for (const tool of TOOLS) {
    const listed = tool.listedFor
      ? tool.listedFor(access)
      : access.toolsets.has(tool.toolset) && (!access.readOnly || tool.readOnly) && tool.scopes.every((s) => access.scopes.has(s))
        ? tool
        : undefined;
    if (listed) out.push(listed);
  }
  return out;
}

/**
 * Lists already built, by what decides them (toolsets, read-only, scopes):
 * many callers share a few lists, and each is turned into JSON Schema once.
 * Bounded, oldest first out, as an unusual combination of scopes should not
 * grow the process.
 */
const LIST_CACHE_MAX = 256;
const listCache = new Map<string, ListedTool[]>();

export function toolList(access: ToolAccess): ListedTool[] {
  const key = `${[...access.toolsets].sort().join(',')}|${access.readOnly}|${access.anonymous ? '-' : [...access.scopes].sort().join(' ')}`;
  let list = listCache.get(key);
  if (!list) {
    list = listedTools(access).map((tool) => listedTool(tool));
    if (listCache.size >= LIST_CACHE_MAX) listCache.delete(listCache.keys().next().value!);
    listCache.set(key, list);
  }
  return list;
}

function listedTool(tool: ToolDef): ListedTool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.scopes.length ? `${tool.description} (scope: ${tool.scopes.join(' ')})` : tool.description,
    inputSchema: toolSchemaOf(inputOf(tool)) as ListedTool['inputSchema'],
    annotations: { readOnlyHint: tool.readOnly, destructiveHint: tool.destroys !== undefined, idempotentHint: tool.idempotent ?? tool.readOnly, openWorldHint: false },
  };
}

/** A tool's whole input: its own shape, `pseudonymize` where it shows learners, nothing else accepted. */
const inputs = new WeakMap<ToolDef, z.ZodType>();

function inputOf(tool: ToolDef): z.ZodType {
  let input = inputs.get(tool);
  if (!input) inputs.set(tool, (input = z.strictObject({ ...tool.input, ...(tool.showsLearners ? { pseudonymize: pseudonymizeOption() } : {}) })));
  return input;
}

/**
 * The JSON Schema a client reads, without the dialect (MCP fixes it) and
 * without regular expressions: a date-time is said by its format, and every
 * other pattern by its description ("ISO 4217 code: three upper-case
 * letters"), which a model reads better. A 300-character expression repeated
 * on every date cost every client's context for nothing. The call is still
 * checked against the full schema, patterns included (inputOf).
 */
function toolSchemaOf(input: z.ZodType): Record<string, unknown> {
  return withoutPatterns(jsonSchemaOf(input, 'input')) as Record<string, unknown>;
}

function withoutPatterns(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutPatterns);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    // A property named "pattern" is a property, not a keyword: only the keyword goes.
    if (k === 'pattern' && typeof v === 'string') continue;
    out[k] = withoutPatterns(v);
  }
  return out;
}

/** What tools/call answers (MCP CallToolResult). */
export interface CallResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const failure = (text: string): CallResult => ({ content: [{ type: 'text', text }], isError: true });

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(httpError('server_error', `The tool did not finish within ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Whether the caller holds every scope the tool and its arguments need (the route's guard asked for them). */
function allowed(tool: ToolDef, args: unknown, caller: Caller): boolean {
  const needed = [...tool.scopes, ...(tool.argumentScopes?.(args) ?? [])];
  if (needed.length === 0) return true;
  return caller.kind === 'token' && needed.every((s) => caller.scopes.has(s));
}

/**
 * Before a destructive call runs, the person is asked (confirmation.ts)
 * when the client can ask them; their answer is logged with the app, and a
 * "no" ends the call with a tool error that says nothing was removed.
 * Undefined: go on (confirmed, or a client that cannot ask, which already
 * sees the tool's destructiveHint).
 */
async function askFirst(ctx: ToolContext, tool: ToolDef, removal: Removal, args: unknown, request: ServerContext | undefined): Promise<CallResult | InputRequiredResult | undefined> {
  const caller = ctx.caller;
  if (caller.kind !== 'token' || !request) return undefined;
  const step = await confirmDestructive(request, ctx.deps, {
    tool: tool.name,
    args,
    who: `${caller.userId} ${caller.clientId}`,
    message: `An app asks to remove ${removal.label} (${tool.title.toLowerCase()}). This cannot be undone. Go ahead?`,
  });
  if ('ask' in step) return step.ask;
  if ('cannotAsk' in step) return undefined;
  await logActivity(ctx.deps, {
    event: 'confirmation.answered',
    userId: caller.userId,
    clientId: caller.clientId,
    via: 'mcp',
    operation: tool.name,
    recordType: removal.recordType,
    recordId: removal.recordId,
    fields: [step.answer],
  });
  return step.answer === 'accepted' ? undefined : failure(`Nothing was removed: the person declined to remove ${removal.label}.`);
}

/**
 * Runs a tool: unknown tools and arguments are answered with what to call
 * instead; failures become results with isError, never transport errors.
 * The text carries the summary and then the structured content as JSON, so
 * a client that shows only one of them shows everything.
 */
export async function callTool(ctx: ToolContext, name: string, args: unknown, request?: ServerContext): Promise<CallResult | InputRequiredResult> {
  const tool = toolByName(name);
  if (!tool) {
    const near = closest(
      name,
      TOOLS.map((t) => t.name),
    );
    return failure(`No tool named "${name.slice(0, 100)}"${near ? `; did you mean ${near}?` : ''}`);
  }
  // The guard has already answered 401 or 403 to a call without the scopes; this keeps a
  // server built for another caller from ever running a tool beyond its token.
  if (!allowed(tool, args, ctx.caller)) return failure(`This call needs the scope ${[...tool.scopes, ...(tool.argumentScopes?.(args) ?? [])].join(' ')}.`);
  try {
    const { pseudonymize, ...input } = checkArguments(inputOf(tool), args) as Record<string, unknown>;
    if (tool.destroys && input.dry_run !== true && ctx.caller.kind === 'token') {
      const asked = await askFirst(ctx, tool, tool.destroys(input), args, request);
      if (asked) return asked;
    }
    const run = () => withPseudonyms(ctx, pseudonymize).then((callCtx) => tool.run(callCtx, input as never));
    const caller = ctx.caller;
    // What the tool writes is logged as this tool's, called by the token's app for its user.
    const acting = caller.kind === 'token' ? () => actingAs({ userId: caller.userId, clientId: caller.clientId, via: 'mcp', operation: tool.name }, run) : run;
    const result = await withTimeout(acting(), TOOL_TIMEOUT_MS);
    const text = `${result.text}\n\n${JSON.stringify(result.structured)}`;
    if (text.length > ANSWER_MAX_CHARS) {
      return failure(`The answer would be ${text.length} characters, more than ${ANSWER_MAX_CHARS}: ask for less (a smaller limit, fewer fields, or without detail).`);
    }
    return { content: [{ type: 'text', text }], structuredContent: result.structured };
  } catch (caught) {
    // As on every route, the client reads the description; a detail or a cause goes to the log only.
    const err = ctx.deps.store.fault(caught);
    if (err instanceof HttpError) {
      logError(ctx.log.child({ tool: tool.name }), err);
      return failure(err.description);
    }
    ctx.log.error({ err, tool: tool.name }, 'MCP tool failed');
    return failure('The tool failed; try again later.');
  }
}
