/**
 * An in-memory OAuthClientProvider for the v2 MCP client package
 * (`@modelcontextprotocol/client`), as a native app with a loopback listener
 * would implement it. Like the v1 one (mcp-oauth-provider.ts), the browser
 * step is left to the test: redirectToAuthorization only records the URL.
 */
import { randomBytes } from 'node:crypto';
import type { OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';

export class InMemoryOAuthProviderV2 implements OAuthClientProvider {
  readonly redirectUrl: string;
  readonly clientMetadata: OAuthClientMetadata;
  /** Every URL the client sent the user to, in order. */
  readonly authorizationUrls: URL[] = [];
  /** Every token set the client saved, in order. */
  readonly savedTokens: StoredOAuthTokens[] = [];
  /** Every state handed out, in order. */
  readonly states: string[] = [];
  private client: StoredOAuthClientInformation | undefined;
  private current: StoredOAuthTokens | undefined;
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;

  constructor(port: number) {
    this.redirectUrl = `http://127.0.0.1:${port}/callback`;
    this.clientMetadata = {
      client_name: 'Lyceum MCP v2 test client',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    const s = randomBytes(12).toString('base64url');
    this.states.push(s);
    return s;
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.client;
  }

  saveClientInformation(info: StoredOAuthClientInformation): void {
    this.client = info;
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.current;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
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

  /** Kept with the verifier, so the client can check the code comes back from the server it went to. */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') this.client = undefined;
    if (scope === 'all' || scope === 'tokens') this.current = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }

  /** The last authorization URL, failing when there is none. */
  lastAuthorizationUrl(): URL {
    const url = this.authorizationUrls.at(-1);
    if (!url) throw new Error('the client never sent the user to the authorization endpoint');
    return url;
  }
}
