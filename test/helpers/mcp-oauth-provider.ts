/**
 * An in-memory OAuthClientProvider for the MCP SDK's client, as a native app
 * with a loopback listener would implement it. The browser step is left to
 * the test: redirectToAuthorization only records the URL.
 */
import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

export interface ProviderOptions {
  port: number;
  /** grant_types to register; authorization_code and refresh_token by default. */
  grantTypes?: string[];
  /** Also send a `state` (the SDK sends none unless the provider makes one). */
  withState?: boolean;
  /** The https URL of the client's metadata document: the SDK then uses it as client_id instead of registering. */
  clientMetadataUrl?: string;
}

export class InMemoryOAuthProvider implements OAuthClientProvider {
  readonly redirectUrl: string;
  readonly clientMetadata: OAuthClientMetadata;
  /** Every URL the SDK sent the user to, in order. */
  readonly authorizationUrls: URL[] = [];
  /** Every token set the SDK saved, in order. */
  readonly savedTokens: OAuthTokens[] = [];
  /** Every state handed out, in order. */
  readonly states: string[] = [];
  private client: OAuthClientInformationMixed | undefined;
  private current: OAuthTokens | undefined;
  private verifier: string | undefined;
  private readonly withState: boolean;

  constructor(opts: ProviderOptions) {
    this.redirectUrl = `http://127.0.0.1:${opts.port}/callback`;
    this.clientMetadata = {
      client_name: 'Lyceum MCP test client',
      redirect_uris: [this.redirectUrl],
      grant_types: opts.grantTypes ?? ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
    this.withState = opts.withState ?? false;
    if (opts.clientMetadataUrl) this.clientMetadataUrl = opts.clientMetadataUrl;
    if (this.withState) {
      this.state = () => {
        const s = randomBytes(12).toString('base64url');
        this.states.push(s);
        return s;
      };
    }
  }

  state?: () => string;
  readonly clientMetadataUrl?: string;

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.current;
  }

  saveTokens(tokens: OAuthTokens): void {
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

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') this.client = undefined;
    if (scope === 'all' || scope === 'tokens') this.current = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
  }

  /** The last authorization URL, failing when there is none. */
  lastAuthorizationUrl(): URL {
    const url = this.authorizationUrls.at(-1);
    if (!url) throw new Error('the SDK never sent the user to the authorization endpoint');
    return url;
  }
}
