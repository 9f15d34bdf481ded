/**
 * grantedScopes (src/access/scopes.ts): the known scopes of a stored scope
 * string, kept per string; every bearer request asks it of its token.
 */
import { describe, expect, it } from 'vitest';
import { grantedScopes } from '../../src/access/scopes.ts';

describe('grantedScopes', () => {
  it('holds the known scopes of the string and nothing else', () => {
    const set = grantedScopes('openid  students:read retired:scope email');
    expect([...set]).toEqual(['openid', 'students:read', 'email']);
    expect(set.has('profile')).toBe(false);
    expect(grantedScopes('').size).toBe(0);
  });

  it('answers a string with the same set each time, and other strings with their own', () => {
    const raw = 'openid profile courses:read';
    expect(grantedScopes(raw)).toBe(grantedScopes(raw));
    expect([...grantedScopes('openid')]).toEqual(['openid']);
    expect(grantedScopes('openid profile')).not.toBe(grantedScopes(raw));
  });

  it('stays right for a string asked again after many others', () => {
    for (let i = 0; i < 600; i++) expect([...grantedScopes(`openid x${i}`)]).toEqual(['openid']);
    expect([...grantedScopes('students:read students:write')]).toEqual(['students:read', 'students:write']);
  });
});
