/**
 * A token bucket per key, in memory: each key may spend `perMinute` tokens
 * at once, and earns them back evenly over a minute. For outbound requests
 * to hosts that others name (a client's metadata document), where the
 * inbound rate limits, counted per caller, do not bound how often one host
 * is asked. At most `maxKeys` buckets are kept; when full, the oldest goes
 * (it had the longest to refill anyway).
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly maxKeys: number,
  ) {}

  /** Spends one token of `key`; otherwise says how many ms until one is earned. 0 per minute: no limit. */
  take(key: string, now: number): { ok: true } | { ok: false; retryAfterMs: number } {
    if (this.perMinute === 0) return { ok: true };
    const msPerToken = 60_000 / this.perMinute;
    const bucket = this.buckets.get(key);
    const tokens = bucket ? Math.min(this.perMinute, bucket.tokens + (now - bucket.at) / msPerToken) : this.perMinute;
    if (tokens < 1) return { ok: false, retryAfterMs: Math.ceil((1 - tokens) * msPerToken) };
    // Re-inserted, so the map's order stays oldest first.
    this.buckets.delete(key);
    if (this.buckets.size >= this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!);
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    return { ok: true };
  }
}
