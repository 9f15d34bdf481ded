/**
 * An in-memory OAuthClientProvider for the v2 MCP client package
 * (`@modelcontextprotocol/client`), on the shared recording provider: it
 * always sends a `state`, and keeps the discovery state with the verifier.
 */
import type { OAuthClientProvider, OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';
import { RecordingOAuthProvider, type CredentialScope } from './recording-oauth-provider.ts';

export class InMemoryOAuthProviderV2 extends RecordingOAuthProvider<StoredOAuthClientInformation, StoredOAuthTokens> implements OAuthClientProvider {
  private discovery: OAuthDiscoveryState | undefined;

  constructor(port: number) {
    super(port, 'Lyceum MCP v2 test client');
  }

  state(): string {
    return this.newState();
  }

  /** Kept with the verifier, so the client can check the code comes back from the server it went to. */
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  override invalidateCredentials(scope: CredentialScope): void {
    super.invalidateCredentials(scope);
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }
}
