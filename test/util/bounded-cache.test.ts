/**
 * boundedCache (src/util/bounded-cache.ts): a value is made once per key,
 * at most `limit` are kept, and the oldest goes first.
 */
import { describe, expect, it } from 'vitest';
import { boundedCache } from '../../src/util/bounded-cache.ts';

describe('boundedCache', () => {
  it('makes a value once per key and answers the kept one after', () => {
    const cache = boundedCache<string, { key: string }>(3);
    const made: string[] = [];
    const make = (key: string) => (made.push(key), { key });
    const first = cache('a', make);
    expect(cache('a', make)).toBe(first);
    expect(cache('b', make)).toEqual({ key: 'b' });
    expect(made).toEqual(['a', 'b']);
  });

  it('keeps at most `limit` values, dropping the oldest even when it was just used', () => {
    const cache = boundedCache<number, number>(2);
    const made: number[] = [];
    const make = (key: number) => (made.push(key), key * 10);
    cache(1, make);
    cache(2, make);
    expect(cache(1, make)).toBe(10);
    cache(3, make);
    expect(cache(2, make)).toBe(20);
    expect(cache(1, make)).toBe(10);
    expect(made).toEqual([1, 2, 3, 1]);
  });
});
