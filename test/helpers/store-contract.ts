/**
 * What the store contract tests (test/store/contract/) share: rows to
 * store, and a freshly migrated store of each kind with a user and a
 * client most tests hang their rows on (foreign keys).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { openStore } from '../../src/store/kysely/open.ts';
import type { AuthorizationCode, Client, DeviceAuthorization, Store, Token, User } from '../../src/store/types.ts';
import { databaseConfig, freshDatabaseUrl, type StoreKind } from './stores.ts';

/** Epoch-ms times well above 2^32, so a bigint column that comes back as a string or is truncated shows. */
export const T0 = 1_750_000_000_000;
/** The time base of the purge tests: older than every other row of the suite. */
export const PAST = 1_000_000_000_000;

export const id = (prefix = '') => `${prefix}${randomUUID()}`;
export const hash = () => randomBytes(32).toString('base64url');

export function newUser(over: Partial<User> = {}): User {
  const u = id('u-');
  return {
    id: u,
    email: `${u}@school.test`,
    name: 'A user',
    role: 'student',
    passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}

export function newClient(over: Partial<Client> = {}): Client {
  return {
    id: id('lyc_client_'),
    secretHash: null,
    metadata: {
      client_name: 'Contract CLI',
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    },
    createdAt: T0,
    lastUsedAt: null,
    registration: 'open',
    ...over,
  };
}

export function newCode(clientId: string, userId: string, over: Partial<AuthorizationCode> = {}): AuthorizationCode {
  return {
    hash: hash(),
    clientId,
    userId,
    redirectUri: 'http://127.0.0.1:8765/callback',
    scope: 'openid courses:read',
    resource: null,
    nonce: 'n-0S6_WzA2Mj',
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    authTime: T0 - 5_000,
    familyId: randomUUID(),
    expiresAt: T0 + 60_000,
    createdAt: T0,
    ...over,
  };
}

export function newDeviceAuthorization(clientId: string, over: Partial<DeviceAuthorization> = {}): DeviceAuthorization {
  return {
    hash: hash(),
    userCodeHash: hash(),
    clientId,
    scope: 'openid courses:read',
    resource: null,
    status: 'pending',
    userId: null,
    authTime: null,
    familyId: randomUUID(),
    interval: 5,
    lastPolledAt: null,
    expiresAt: T0 + 600_000,
    createdAt: T0,
    ...over,
  };
}

export function newToken(clientId: string, userId: string, over: Partial<Token> = {}): Token {
  const kind = over.kind ?? 'refresh';
  return {
    hash: hash(),
    kind,
    clientId,
    userId,
    scope: 'courses:read',
    resource: null,
    familyId: randomUUID(),
    authTime: T0 - 5_000,
    expiresAt: T0 + 3_600_000,
    createdAt: T0,
    revokedAt: null,
    rotatedAt: null,
    salt: kind === 'refresh' ? randomBytes(16).toString('base64url') : null,
    ...over,
  };
}

/** Every time field of a row must come back as a JS number on every store. */
export function expectNumericTimes(row: object, fields: string[]): void {
  for (const f of fields) {
    const v = (row as Record<string, unknown>)[f];
    if (v === null) continue;
    expect(typeof v, `${f} should be a number, got ${typeof v} (${String(v)})`).toBe('number');
  }
}

/** A migrated store of `kind` on a database of its own, with one user and one client. */
export async function openContractStore(kind: StoreKind): Promise<{ store: Store; url: string; user: User; client: Client }> {
  const url = await freshDatabaseUrl(kind);
  const store = openStore(databaseConfig(url));
  await store.migrate();
  const user = newUser();
  const client = newClient();
  await store.users.create(user);
  await store.clients.create(client);
  return { store, url, user, client };
}
