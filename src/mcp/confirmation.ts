import { createHash } from 'node:crypto';
import { CLIENT_CAPABILITIES_META_KEY, inputRequired, inputResponse, type InputRequiredResult, type ServerContext } from '@modelcontextprotocol/server';
import type { Deps } from '../deps.ts';

/** The key of the one question a destructive call asks. */
const QUESTION = 'confirm';
/** How long an asked question stays answerable; after it the call asks again. */
const ANSWER_WITHIN_MS = 10 * 60_000;

/** What a destructive call does next: ask the person, go on with their answer, or go on as before where nobody can be asked. */
export type ConfirmationStep = { ask: InputRequiredResult } | { answer: 'accepted' | 'declined' } | { cannotAsk: true };

/** The question as this server sealed it: for this call only, by this caller, until `until`. */
interface Asked {
  call: string;
  until: number;
}

/** The call a question is about: the tool, its arguments and who calls it, as one digest. */
const callDigest = (tool: string, args: unknown, who: string) =>
  createHash('sha256')
    .update(JSON.stringify([tool, args, who]))
    .digest('base64url');

/**
 * Whether this request's client said it can show the person a form
 * (protocol revision 2026-07-28 carries the capabilities in every request's
 * envelope; `elicitation: {}` means form mode, as does an explicit `form`).
 * A request of the 2025 revisions, on this stateless server, has no way to
 * be asked anything.
 */
function clientCanAsk(mcp: ServerContext): boolean {
  const caps = mcp.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as never] as { elicitation?: Record<string, unknown> } | undefined;
  const elicitation = caps?.elicitation;
  if (!elicitation || typeof elicitation !== 'object') return false;
  return Object.keys(elicitation).length === 0 || 'form' in elicitation;
}

/**
 * Asks the person before a destructive tool runs, through the protocol's
 * multi-round-trip input request: the first call answers `input_required`
 * with one yes/no question and a sealed state naming the call; the client
 * shows the question and calls again with the answer and the state. Only an
 * answer to this server's own question about this very call (same tool,
 * arguments and caller, within ANSWER_WITHIN_MS) counts: an answer sent
 * unasked, or carried over to another call, is asked again.
 */
export async function confirmDestructive(mcp: ServerContext, deps: Pick<Deps, 'keys' | 'now'>, call: { tool: string; args: unknown; who: string; message: string }): Promise<ConfirmationStep> {
  if (!clientCanAsk(mcp)) return { cannotAsk: true };
  const digest = callDigest(call.tool, call.args, call.who);
  const sealed = mcp.mcpReq.requestState<string>();
  if (typeof sealed === 'string' && sealed.length < 4096) {
    const asked = await deps.keys.unsealSecret(sealed).then(
      (text) => JSON.parse(text) as Asked,
      () => undefined,
    );
    const response = inputResponse(mcp.mcpReq.inputResponses, QUESTION);
    if (asked?.call === digest && asked.until > deps.now() && response.kind === 'elicit') {
      return { answer: response.action === 'accept' && response.content?.[QUESTION] === true ? 'accepted' : 'declined' };
    }
  }
  const requestState = await deps.keys.sealSecret(JSON.stringify({ call: digest, until: deps.now() + ANSWER_WITHIN_MS } satisfies Asked));
  return {
    ask: inputRequired({
      inputRequests: {
        [QUESTION]: inputRequired.elicit({
          message: call.message,
          requestedSchema: {
            type: 'object',
            properties: { [QUESTION]: { type: 'boolean', title: 'Yes, go ahead', description: 'This cannot be undone.' } },
            required: [QUESTION],
          },
        }),
      },
      requestState,
    }),
  };
}
