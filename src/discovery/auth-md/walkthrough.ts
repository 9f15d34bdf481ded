import { ENDPOINTS } from '../../oauth/endpoints.ts';

/** The example client of the walkthrough: registered without a port, used with one (any port is accepted). */
export const WALKTHROUGH = {
  registeredRedirectUri: 'http://127.0.0.1/callback',
  port: 8765,
  scope: 'openid profile email courses:read',
  /** The line the reader replaces with the address the browser ended on. */
  callbackPlaceholder: "CALLBACK='paste the address here'",
} as const;

/** Marks the one step a person does by hand (a browser), so the rest can be run as written. */
export const BROWSER_STEP_MARKER = '# In a browser';

/** Each value the way URLSearchParams (and so the authorization redirect) encodes it. */
const queryEncode = (v: string) => new URLSearchParams({ v }).toString().slice(2);

/**
 * The values of the walkthrough's shell blocks (template.md): register,
 * PKCE, the browser, code exchange, an API call, refresh, revocation. The
 * blocks run as written, in order, in one shell; `$ISSUER`, `$CLIENT_ID`
 * and the PKCE values are the shell's own variables.
 */
export function walkthroughView(issuer: string) {
  const redirectUri = WALKTHROUGH.registeredRedirectUri.replace('127.0.0.1/', `127.0.0.1:${WALKTHROUGH.port}/`);
  return {
    redirectUri,
    registration: {
      client_name: 'My CLI',
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      redirect_uris: [WALKTHROUGH.registeredRedirectUri],
    },
    authorizationUrl:
      `$ISSUER${ENDPOINTS.authorization}?response_type=code&client_id=$CLIENT_ID` +
      `&redirect_uri=${queryEncode(redirectUri)}&scope=${queryEncode(WALKTHROUGH.scope).replace(/\+/g, '%20')}` +
      `&code_challenge=$CODE_CHALLENGE&code_challenge_method=S256&state=$STATE`,
    browserStepMarker: BROWSER_STEP_MARKER,
    callbackPlaceholder: WALKTHROUGH.callbackPlaceholder,
    encodedIssuer: queryEncode(issuer),
  };
}
