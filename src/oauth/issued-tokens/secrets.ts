import { createHash, createHmac, randomBytes } from 'node:crypto';

/**
 * Opaque credentials: a readable prefix (so secret scanners can find leaked
 * ones) and 256 bits of randomness. Only their SHA-256 ever reaches the store.
 */
export const PREFIX = {
  access: 'lyc_at_',
  refresh: 'lyc_rt_',
  code: 'lyc_ac_',
  deviceCode: 'lyc_dc_',
  client: 'lyc_client_',
  secret: 'lyc_cs_',
  session: 'lyc_ss_',
} as const;

export function newSecret(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

/** A client_id: not a secret (it is public), so 128 random bits are enough to be unique. */
export function newClientId(): string {
  return PREFIX.client + randomBytes(16).toString('base64url');
}

export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/**
 * A successor credential derived from the one it replaces, so that a refresh
 * replayed inside the grace window yields the very same successor on any
 * instance. The salt is random per token and kept in the store: the old
 * token alone is not enough to compute its successor.
 */
export function deriveSecret(prefix: string, parent: string, salt: string, purpose: string): string {
  return prefix + createHmac('sha256', parent).update(`${salt}:${purpose}`).digest('base64url');
}

/** The access and refresh tokens a refresh token is exchanged for (see deriveSecret). */
export function successorSecrets(refreshToken: string, salt: string): { accessToken: string; refreshToken: string } {
  return {
    accessToken: deriveSecret(PREFIX.access, refreshToken, salt, 'access'),
    refreshToken: deriveSecret(PREFIX.refresh, refreshToken, salt, 'refresh'),
  };
}

export const newSalt = (): string => randomBytes(16).toString('base64url');
