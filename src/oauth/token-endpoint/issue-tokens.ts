import type { Deps } from '../../deps.ts';
import type { Client, Token } from '../../store/types.ts';
import { newSalt, newSecret, PREFIX, sha256, successorSecrets } from '../issued-tokens/secrets.ts';

/** RFC 6749 §5.1 successful response (plus id_token when OpenID Connect adds one). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
  id_token?: string;
}

/** What a new token pair is issued for. */
export interface Issuance {
  client: Client;
  userId: string;
  /** Scope of the access token. */
  scope: string;
  /** Scope of the refresh token, when it differs (RFC 6749 §6: a refresh keeps the original grant). */
  refreshScope?: string;
  resource: string | null;
  familyId: string;
  authTime: number;
}

export interface MintedPair {
  accessToken: string;
  refreshToken?: string;
  rows: Token[];
}

function rows(i: Issuance, now: number, deps: Deps, accessToken: string, refreshToken: string | undefined): Token[] {
  const base = {
    clientId: i.client.id,
    userId: i.userId,
    scope: i.scope,
    resource: i.resource,
    familyId: i.familyId,
    authTime: i.authTime,
    createdAt: now,
    revokedAt: null,
    rotatedAt: null,
  };
  const out: Token[] = [{ ...base, hash: sha256(accessToken), kind: 'access', expiresAt: now + deps.config.accessTokenTtl * 1000, salt: null }];
  if (refreshToken) {
    out.push({
      ...base,
      scope: i.refreshScope ?? i.scope,
      hash: sha256(refreshToken),
      kind: 'refresh',
      expiresAt: now + deps.config.refreshTokenTtl * 1000,
      salt: newSalt(),
    });
  }
  return out;
}

const wantsRefresh = (client: Client) => client.metadata.grant_types.includes('refresh_token');

/** A fresh random pair (authorization_code grant). Minting and storing are separate steps. */
export function mintPair(i: Issuance, deps: Deps): MintedPair {
  const accessToken = newSecret(PREFIX.access);
  const refreshToken = wantsRefresh(i.client) ? newSecret(PREFIX.refresh) : undefined;
  return { accessToken, refreshToken, rows: rows(i, deps.now(), deps, accessToken, refreshToken) };
}

/**
 * The successor pair of a refresh token, derived from it (see deriveSecret):
 * the same old token and salt always give the same pair, on any instance.
 */
export function deriveSuccessorPair(i: Issuance, oldRefreshToken: string, salt: string, deps: Deps): MintedPair {
  const { accessToken, refreshToken } = successorSecrets(oldRefreshToken, salt);
  return { accessToken, refreshToken, rows: rows(i, deps.now(), deps, accessToken, refreshToken) };
}

export function tokenResponse(pair: MintedPair, scope: string, expiresIn: number): TokenResponse {
  return {
    access_token: pair.accessToken,
    token_type: 'Bearer',
    expires_in: expiresIn,
    ...(pair.refreshToken ? { refresh_token: pair.refreshToken } : {}),
    scope,
  };
}
