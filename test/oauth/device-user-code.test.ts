/** User codes (RFC 8628 §6.1): what is shown, and what a person may type for it. */
import { describe, expect, it } from 'vitest';
import { displayUserCode, newUserCode, normaliseUserCode } from '../../src/oauth/device/user-code.ts';

describe('user codes', () => {
  it('are two groups of four of the twenty consonants, and differ', () => {
    const codes = Array.from({ length: 200 }, () => newUserCode());
    for (const c of codes) expect(c).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(new Set(codes).size).toBe(200);
    // Every letter of the alphabet turns up: none is left out by an off-by-one.
    expect(new Set(codes.join('').replace(/-/g, '')).size).toBe(20);
  });

  it('are read whatever the case, with or without the dash, with spaces or dots between', () => {
    for (const typed of ['BCDF-GHJK', 'bcdf-ghjk', 'BCDFGHJK', ' bcdf ghjk ', 'BCDF.GHJK', 'bc-df-gh-jk']) expect(normaliseUserCode(typed), typed).toBe('BCDFGHJK');
  });

  it('are refused when they cannot be a code: a look-alike or a vowel, too short or long, or a very long input', () => {
    for (const typed of ['BCDF-GHJA', 'BCDF-GHJ0', 'ACDF-GHJK', 'BCDF-GHJ', 'BCDF-GHJKL', '', '--------']) expect(normaliseUserCode(typed), typed).toBeUndefined();
    // At most 40 characters are read, padding included.
    expect(normaliseUserCode(`BCDFGHJK${' '.repeat(32)}`)).toBe('BCDFGHJK');
    expect(normaliseUserCode(`BCDFGHJK${' '.repeat(33)}`)).toBeUndefined();
  });

  it('are shown with their dash, given with or without one', () => {
    expect(displayUserCode('BCDFGHJK')).toBe('BCDF-GHJK');
    expect(displayUserCode('BCDF-GHJK')).toBe('BCDF-GHJK');
  });
});
