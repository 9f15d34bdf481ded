/**
 * What the in-memory OAuth client providers of both MCP SDK client
 * packages keep, as a native app with a loopback listener would: the
 * registered client, the tokens, the PKCE verifier, and every URL the user
 * was sent to. The browser step is left to the test: redirectToAuthorization
 * only records the URL. mcp-oauth-provider.ts (v1) and
 * mcp-oauth-provider-v2.ts add what each package asks beyond it.
 */
import { randomBytes } from 'node:crypto';

export type CredentialScope = 'all' | 'client' | 'tokens' | 'verifier' | 'discovery';

export class RecordingOAuthProvider<Client, Tokens> {
  readonly redirectUrl: string;
  readonly clientMetadata: {
    client_name: string;
    redirect_uris: string[];
    grant_types: string[];
    response_types: string[];
    token_endpoint_auth_method: string;
  };
  /** Every URL the client sent the user to, in order. */
  readonly authorizationUrls: URL[] = [];
  /** Every token set the client saved, in order. */
  readonly savedTokens: Tokens[] = [];
  /** Every state handed out, in order. */
  readonly states: string[] = [];
  private client: Client | undefined;
  private current: Tokens | undefined;
  private verifier: string | undefined;

  constructor(port: number, clientName: string, grantTypes = ['authorization_code', 'refresh_token']) {
    this.redirectUrl = `http://127.0.0.1:${port}/callback`;
    this.clientMetadata = {
      client_name: clientName,
      redirect_uris: [this.redirectUrl],
      grant_types: grantTypes,
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  /** A fresh `state`, recorded. */
  protected newState(): string {
    const s = randomBytes(12).toString('base64url');
    this.states.push(s);
    return s;
  }

  clientInformation(): Client | undefined {
    return this.client;
  }

  saveClientInformation(info: Client): void {
    this.client = info;
  }

  tokens(): Tokens | undefined {
    return this.current;
  }

  saveTokens(tokens: Tokens): void {
    this.current = tokens;
    this.savedTokens.push(tokens);
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrls.push(new URL(url.href));
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no code verifier was saved');
    return this.verifier;
  }

  invalidateCredentials(scope: CredentialScope): void {
    if (scope === 'all' || scope === 'client') this.client = undefined;
    if (scope === 'all' || scope === 'tokens') this.current = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
  }

  /** The last authorization URL, failing when there is none. */
  lastAuthorizationUrl(): URL {
    const url = this.authorizationUrls.at(-1);
    if (!url) throw new Error('the client never sent the user to the authorization endpoint');
    return url;
  }
}
