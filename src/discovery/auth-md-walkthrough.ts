import { ENDPOINTS } from '../oauth/endpoints.ts';
import { fence } from './markdown.ts';

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
 * Step by step, with curl and openssl only: register, PKCE, the browser,
 * code exchange, an API call, refresh, revocation. Every shell block runs
 * as written, in order, in one shell.
 */
export function walkthrough(issuer: string, codeTtl: number): string {
  const redirectUri = WALKTHROUGH.registeredRedirectUri.replace('127.0.0.1/', `127.0.0.1:${WALKTHROUGH.port}/`);
  const authUrl =
    `$ISSUER${ENDPOINTS.authorization}?response_type=code&client_id=$CLIENT_ID` +
    `&redirect_uri=${queryEncode(redirectUri)}&scope=${queryEncode(WALKTHROUGH.scope).replace(/\+/g, '%20')}` +
    `&code_challenge=$CODE_CHALLENGE&code_challenge_method=S256&state=$STATE`;
  const registration = JSON.stringify({
    client_name: 'My CLI',
    application_type: 'native',
    token_endpoint_auth_method: 'none',
    redirect_uris: [WALKTHROUGH.registeredRedirectUri],
  });

  const steps: [string, string, string][] = [
    [
      'Settings', 'Used by every step. `json_field` pulls a string member out of a one-line JSON answer (`jq -r .NAME` does the same if you have jq).',
      `ISSUER='${issuer}'
REDIRECT_URI='${redirectUri}'
json_field() { sed -n "s/.*\\"$1\\": *\\"\\([^\\"]*\\)\\".*/\\1/p"; }`,
    ],
    [
      'Register the client', `Once (RFC 7591). The registered redirect URI has no port: at authorization time any port on the same host and path is accepted. Keep the \`client_id\`.`,
      `REGISTRATION=$(curl -sS "$ISSUER${ENDPOINTS.registration}" \\
  -H 'Content-Type: application/json' \\
  -d '${registration}')
echo "$REGISTRATION"
CLIENT_ID=$(printf '%s' "$REGISTRATION" | json_field client_id)`,
    ],
    [
      'Make a PKCE pair', 'RFC 7636, S256: a 64-character verifier, its SHA-256 in base64url as the challenge, and a random state value.',
      `CODE_VERIFIER=$(openssl rand -base64 48 | tr -d '\\n=' | tr '+/' '-_')
CODE_CHALLENGE=$(printf '%s' "$CODE_VERIFIER" | openssl dgst -sha256 -binary | openssl base64 -A | tr -d '=' | tr '+/' '-_')
STATE=$(openssl rand -hex 16)`,
    ],
    [
      'Build the authorization URL', 'Values URL-encoded; scopes separated by `%20`.',
      `AUTH_URL="${authUrl}"
echo "$AUTH_URL"`,
    ],
    [
      'Sign in and approve', `Open the URL in a browser, sign in and press Allow. The browser is then sent to \`${redirectUri}?code=…&state=…&iss=…\`. A real client listens on that port; here nothing does, so the browser shows a connection error, but the address bar holds the answer.`,
      `${BROWSER_STEP_MARKER}: xdg-open on Linux, open on macOS, or paste the URL yourself
xdg-open "$AUTH_URL" 2>/dev/null || open "$AUTH_URL"`,
    ],
    [
      'Receive code, state and iss', 'Paste that address, take `code`, and check `state` and `iss` (RFC 9207) before going on: `iss` must be this issuer, byte for byte.',
      `${WALKTHROUGH.callbackPlaceholder}
query_param() { printf '%s' "$CALLBACK" | sed -n "s/.*[?&]$1=\\([^&]*\\).*/\\1/p"; }
CODE=$(query_param code)
[ "$(query_param state)" = "$STATE" ] || echo 'state does not match: stop here'
[ "$(query_param iss)" = '${queryEncode(issuer)}' ] || echo 'iss does not match: stop here'`,
    ],
    [
      'Exchange the code', `Within ${codeTtl} seconds (the code's lifetime), with the same redirect_uri (port included) and the code_verifier. A code works once. The answer holds \`access_token\`, \`token_type\` (Bearer), \`expires_in\`, \`refresh_token\`, \`scope\` (what was granted) and, with \`openid\`, an \`id_token\`.`,
      `TOKENS=$(curl -sS "$ISSUER${ENDPOINTS.token}" \\
  --data-urlencode grant_type=authorization_code \\
  --data-urlencode "code=$CODE" \\
  --data-urlencode "redirect_uri=$REDIRECT_URI" \\
  --data-urlencode "client_id=$CLIENT_ID" \\
  --data-urlencode "code_verifier=$CODE_VERIFIER")
echo "$TOKENS"
ACCESS_TOKEN=$(printf '%s' "$TOKENS" | json_field access_token)
REFRESH_TOKEN=$(printf '%s' "$TOKENS" | json_field refresh_token)`,
    ],
    [
      'Call the API', 'Call the API and UserInfo with the access token in the Authorization header.',
      `curl -sS "$ISSUER/api/v1/courses" -H "Authorization: Bearer $ACCESS_TOKEN"
echo
curl -sS "$ISSUER${ENDPOINTS.userinfo}" -H "Authorization: Bearer $ACCESS_TOKEN"
echo`,
    ],
    [
      'Refresh', 'Before the access token expires, refresh. Every refresh returns a new refresh token: keep it, the old one is spent.',
      `TOKENS=$(curl -sS "$ISSUER${ENDPOINTS.token}" \\
  --data-urlencode grant_type=refresh_token \\
  --data-urlencode "refresh_token=$REFRESH_TOKEN" \\
  --data-urlencode "client_id=$CLIENT_ID")
echo "$TOKENS"
ACCESS_TOKEN=$(printf '%s' "$TOKENS" | json_field access_token)
REFRESH_TOKEN=$(printf '%s' "$TOKENS" | json_field refresh_token)`,
    ],
    [
      'Revoke', 'To sign out, revoke the refresh token (RFC 7009). That also ends every access token of the same sign-in, so the last call answers 401 `invalid_token`.',
      `curl -sS -o /dev/null -w 'revoke: %{http_code}\\n' "$ISSUER${ENDPOINTS.revocation}" \\
  --data-urlencode "token=$REFRESH_TOKEN" \\
  --data-urlencode "client_id=$CLIENT_ID"
curl -sS -o /dev/null -w 'after revocation: %{http_code}\\n' "$ISSUER${ENDPOINTS.userinfo}" -H "Authorization: Bearer $ACCESS_TOKEN"`,
    ],
  ];
  return steps.map(([title, prose, sh], i) => `### ${i}. ${title}\n\n${prose}\n\n${fence('sh', sh)}`).join('\n\n');
}
