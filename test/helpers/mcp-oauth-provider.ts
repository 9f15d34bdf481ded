/**
 * An in-memory OAuthClientProvider for the v1 MCP SDK's client
 * (`@modelcontextprotocol/sdk`), on the shared recording provider.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { RecordingOAuthProvider } from './recording-oauth-provider.ts';

export interface ProviderOptions {
  port: number;
  /** grant_types to register; authorization_code and refresh_token by default. */
  grantTypes?: string[];
  /** Also send a `state` (the SDK sends none unless the provider makes one). */
  withState?: boolean;
  /** The https URL of the client's metadata document: the SDK then uses it as client_id instead of registering. */
  clientMetadataUrl?: string;
}

export class InMemoryOAuthProvider extends RecordingOAuthProvider<OAuthClientInformationMixed, OAuthTokens> implements OAuthClientProvider {
  state?: () => string;
  readonly clientMetadataUrl?: string;

  constructor(opts: ProviderOptions) {
    super(opts.port, 'Lyceum MCP test client', opts.grantTypes);
    if (opts.clientMetadataUrl) this.clientMetadataUrl = opts.clientMetadataUrl;
    if (opts.withState) this.state = () => this.newState();
  }
}
