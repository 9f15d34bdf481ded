import { describe, expect, it } from 'vitest';
import { TokenBuckets } from '../../src/util/token-buckets.ts';

describe('token buckets per key', () => {
  it('lets a key spend its tokens at once, then one more each 60/perMinute seconds, saying how long to wait', () => {
    const buckets = new TokenBuckets(3, 10);
    expect([buckets.take('a', 0), buckets.take('a', 0), buckets.take('a', 0)]).toEqual(Array(3).fill({ ok: true }));
    expect(buckets.take('a', 0)).toEqual({ ok: false, retryAfterMs: 20_000 });
    expect(buckets.take('a', 19_999)).toEqual({ ok: false, retryAfterMs: 1 });
    expect(buckets.take('a', 20_000)).toEqual({ ok: true });
    // Another key has its own bucket.
    expect(buckets.take('b', 20_000)).toEqual({ ok: true });
  });

  it('never holds more than perMinute tokens, however long a key was idle', () => {
    const buckets = new TokenBuckets(2, 10);
    buckets.take('a', 0);
    const later = 3_600_000;
    expect([buckets.take('a', later), buckets.take('a', later)]).toEqual([{ ok: true }, { ok: true }]);
    expect(buckets.take('a', later).ok).toBe(false);
  });

  it('keeps at most maxKeys buckets, dropping the oldest (which starts full again)', () => {
    const buckets = new TokenBuckets(1, 2);
    buckets.take('a', 0);
    buckets.take('b', 0);
    buckets.take('c', 0);
    expect(buckets.take('b', 0).ok).toBe(false);
    expect(buckets.take('a', 0).ok).toBe(true);
  });

  it('0 per minute is no limit', () => {
    const buckets = new TokenBuckets(0, 1);
    for (let i = 0; i < 100; i++) expect(buckets.take('a', 0).ok).toBe(true);
  });
});
