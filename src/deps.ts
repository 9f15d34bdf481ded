import type { Config } from './config/index.ts';
import type { KeyRing } from './keys/keyring.ts';
import type { ClientMetadata, Store } from './store/types.ts';
import type { SigningAlg } from './util/authorization-server.ts';

export interface IdTokenInput {
  clientId: string;
  userId: string;
  nonce: string | null;
  authTime: number;
  accessToken: string;
  scope: string;
  /** The client's id_token_signed_response_alg (the default algorithm when it registered none). */
  alg: SigningAlg;
}

/** Signs OpenID Connect ID tokens (src/oidc/). */
export interface IdTokenSigner {
  sign(input: IdTokenInput): Promise<string>;
}

/**
 * Clients whose client_id is the URL of their metadata document
 * (src/oauth/clients/metadata-document.ts): fetched, checked and kept by
 * each instance. `read` throws an OAuthError when the document cannot be
 * used; `fetched` is true when this call fetched it (the stored row is then
 * brought up to date).
 */
export interface ClientDocuments {
  read(clientId: string): Promise<{ metadata: ClientMetadata; fetched: boolean }>;
}

/** What the routes are built from. `now` is injectable so tests can move time. */
export interface Deps {
  config: Config;
  store: Store;
  now: () => number;
  idTokens?: IdTokenSigner;
  keys: KeyRing;
  clientDocuments: ClientDocuments;
}
