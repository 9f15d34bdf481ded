import type { Config } from './config/index.ts';
import type { KeyRing } from './keys/keyring.ts';
import type { Store } from './store/types.ts';
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

/** What the routes are built from. `now` is injectable so tests can move time. */
export interface Deps {
  config: Config;
  store: Store;
  now: () => number;
  idTokens?: IdTokenSigner;
  keys: KeyRing;
}
