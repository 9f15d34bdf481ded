import { TOOLSETS, TOOLSET_NAMES } from '../toolsets.ts';
import { defineTool, type ToolDef } from '../tool.ts';

/**
 * The way in for an anonymous caller: listed only to callers without a
 * token, it needs account:read, so calling it answers HTTP 401 with the
 * challenge MCP clients start their OAuth flow from. Its description says
 * what signing in opens.
 */
export const signIn: ToolDef = defineTool({
  name: 'sign_in',
  toolset: 'catalog',
  title: 'Sign in to this school',
  description: `Call this to sign in: the answer asks your MCP client to open the school's sign-in page. Signed in you get, as your role allows: ${TOOLSET_NAMES.filter((n) => n !== 'catalog')
    .map((n) => `${n} (${TOOLSETS[n].description.split(':')[0]!.replace(/\.$/, '')})`)
    .join('; ')}.`,
  scopes: ['account:read'],
  listedFor: (access) => (access.anonymous ? signIn : undefined),
  readOnly: true,
  input: {},
  async run(ctx) {
    const who = ctx.caller.kind === 'token' ? ctx.caller.userId : 'nobody';
    return { structured: { signed_in: ctx.caller.kind === 'token', user_id: who }, text: `You are signed in (user ${who}).` };
  },
});
