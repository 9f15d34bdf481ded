/**
 * tokenState (src/oauth/issued-tokens/state.ts): what a stored token is at an
 * instant. The refresh grant, introspection and the bearer guard all ask it.
 */
import { describe, expect, it } from 'vitest';
import { tokenState } from '../../src/oauth/issued-tokens/state.ts';
import type { Token } from '../../src/store/types.ts';

const T0 = 1_700_000_000_000;
const GRACE_S = 10;

function token(fields: Partial<Token> = {}): Token {
  return {
    hash: 'h',
    kind: 'refresh',
    clientId: 'c',
    userId: 'u',
    scope: 'courses:read',
    resource: null,
    familyId: 'f',
    authTime: T0,
    expiresAt: T0 + 3_600_000,
    createdAt: T0,
    revokedAt: null,
    rotatedAt: null,
    salt: 's',
    ...fields,
  };
}

const rotated = token({ rotatedAt: T0 + 1_000 });
const unused = token({ hash: 'successor' });

describe('tokenState', () => {
  it('active until its expiry, expired from that very millisecond', () => {
    expect(tokenState(token(), T0 + 3_600_000 - 1)).toBe('active');
    expect(tokenState(token(), T0 + 3_600_000)).toBe('expired');
    expect(tokenState(token({ kind: 'access', salt: null }), T0)).toBe('active');
  });

  it('revoked before anything else, expired before any rotation rule', () => {
    expect(tokenState(token({ revokedAt: T0, rotatedAt: T0 }), T0 + 10_000_000)).toBe('revoked');
    expect(tokenState(rotated, T0 + 3_600_000, { graceSeconds: GRACE_S, successor: unused })).toBe('expired');
  });

  it('replayable from the rotation up to and including its last grace millisecond, reused one millisecond later', () => {
    const at = (now: number) => tokenState(rotated, now, { graceSeconds: GRACE_S, successor: unused });
    expect(at(T0 + 1_000)).toBe('replayable');
    expect(at(T0 + 1_000 + GRACE_S * 1000)).toBe('replayable');
    expect(at(T0 + 1_000 + GRACE_S * 1000 + 1)).toBe('reused');
  });

  it('counts a request that read the clock before the rotation it lost as inside the window', () => {
    expect(tokenState(rotated, T0 + 999, { graceSeconds: GRACE_S, successor: unused })).toBe('replayable');
  });

  it('reused once the successor was itself rotated or revoked, or is not stored', () => {
    const now = T0 + 1_000;
    expect(tokenState(rotated, now, { graceSeconds: GRACE_S, successor: token({ rotatedAt: now }) })).toBe('reused');
    expect(tokenState(rotated, now, { graceSeconds: GRACE_S, successor: token({ revokedAt: now }) })).toBe('reused');
    expect(tokenState(rotated, now, { graceSeconds: GRACE_S, successor: undefined })).toBe('reused');
  });

  it('with a grace of 0 has no window at all, not even the rotation’s own millisecond or a request that raced it', () => {
    expect(tokenState(rotated, T0 + 1_000, { graceSeconds: 0, successor: unused })).toBe('reused');
    expect(tokenState(rotated, T0 + 999, { graceSeconds: 0, successor: unused })).toBe('reused');
    expect(tokenState(rotated, T0 + 1_000)).toBe('reused');
  });
});
