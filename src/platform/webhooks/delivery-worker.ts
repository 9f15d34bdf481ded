import type { FastifyBaseLogger } from 'fastify';
import { Webhook } from 'standardwebhooks';
import type { Deps } from '../../deps.ts';
import type { AttemptOutcome, ClaimedDelivery } from '../../store/types.ts';
import { OutboundError, outboundRequest } from '../../util/outbound-request.ts';

/** Deliveries one instance claims and sends at once. */
const BATCH = 10;
/** A receiver's answer is read up to this size, then abandoned (only its status counts). */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * When attempt number `attempt` (from 1) failed at `now`: the next attempt's
 * time from the schedule, with up to a tenth added at random so that
 * deliveries failed together do not all come back at once; null when the
 * schedule is spent.
 */
export function retryAt(schedule: readonly number[], attempt: number, now: number, random: () => number = Math.random): number | null {
  const wait = schedule[attempt - 1];
  return wait === undefined ? null : now + Math.round(wait * (1 + random() / 10));
}

/**
 * Each instance's webhook sender: it polls for due deliveries, claims them
 * with a lease (so no other instance sends them while it holds it), signs
 * each the Standard Webhooks way and records how the attempt ended. A lease
 * outlasts an attempt (twice the receiver's timeout and a second), so only an
 * instance that died mid-attempt lets one run out, and then another sends it
 * again: at least once.
 *
 * Up to BATCH attempts run at once, each on its own: a poll claims only as
 * many as there are free places and never waits for the attempts it starts,
 * so one slow receiver holds one place for its timeout, not every delivery
 * behind it.
 */
export class WebhookWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly attempts = new Set<Promise<void>>();

  constructor(
    private readonly deps: Deps,
    private readonly log: FastifyBaseLogger,
  ) {}

  private get settings() {
    return this.deps.config.webhooks;
  }

  start(): void {
    this.schedule(0);
  }

  /** Stops polling and waits for the attempts in flight (each bounded by the receiver's timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await Promise.all(this.attempts);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.poll().finally(() => (this.running = undefined));
    }, ms);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    let more = false;
    try {
      more = await this.claimAndStart();
    } catch (err) {
      if (!this.stopped) this.log.warn({ err, event: 'webhook_poll_failed' }, 'looking for due webhook deliveries failed');
    }
    // Every free place was filled: more may be due at once.
    this.schedule(more ? 0 : this.settings.pollIntervalMs);
  }

  /** Claims what is due, as many as there are free places, and starts each attempt; true when every place was filled. */
  private async claimAndStart(): Promise<boolean> {
    const free = BATCH - this.attempts.size;
    if (free <= 0) return false;
    const now = this.deps.now();
    const claims = await this.deps.store.webhooks.claimDue(now, now + 2 * this.settings.timeoutMs + 1000, free);
    for (const claim of claims) {
      const attempt = this.deliver(claim)
        // Recording the outcome failed (the database): the lease runs out and the delivery is sent again.
        .catch((err: unknown) => this.log.warn({ err, event: 'webhook_attempt_unrecorded', delivery_id: claim.id }, 'the outcome of a webhook delivery attempt could not be recorded'))
        .finally(() => this.attempts.delete(attempt));
      this.attempts.add(attempt);
    }
    return claims.length === free;
  }

  private async deliver(claim: ClaimedDelivery): Promise<void> {
    const { timeoutMs, allowHosts, allowHttp, retryScheduleMs, disableAfter } = this.settings;
    const started = performance.now();
    let statusCode: number | null = null;
    let error: string | undefined;
    try {
      const secret = await this.deps.keys.unsealSecret(claim.subscription.sealedSecret).catch(() => {
        throw new Error('the signing secret cannot be unsealed (was KEYS_SECRET changed?)');
      });
      // The signature's time is the wall clock's: receivers compare it with theirs.
      const at = new Date();
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'Lyceum-Webhooks',
        'webhook-id': claim.eventId,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(secret).sign(claim.eventId, at, claim.payload),
      };
      const res = await outboundRequest(claim.subscription.url, {
        method: 'POST',
        headers,
        body: claim.payload,
        timeoutMs,
        maxBytes: MAX_ANSWER_BYTES,
        allowHosts: new Set(allowHosts),
        allowHttp,
      });
      statusCode = res.status;
      if (res.status < 200 || res.status > 299) error = `the receiver answered ${res.status}`;
    } catch (err) {
      error = err instanceof OutboundError ? `${err.reason}: ${err.message}` : err instanceof Error ? err.message : 'the attempt failed';
    }
    const durationMs = Math.round(performance.now() - started);
    const at = this.deps.now();
    const outcome: AttemptOutcome =
      error === undefined
        ? { ok: true, statusCode: statusCode!, durationMs, at }
        : { ok: false, statusCode, durationMs, at, error: error.slice(0, 500), retryAt: retryAt(retryScheduleMs, claim.attempt, at) };
    if (!outcome.ok) {
      this.log.info(
        {
          event: 'webhook_attempt_failed',
          webhook_id: claim.subscription.id,
          delivery_id: claim.id,
          attempt: claim.attempt,
          status: statusCode,
          reason: outcome.error,
          retry: outcome.retryAt !== null,
        },
        'a webhook delivery attempt failed',
      );
    }
    await this.deps.store.webhooks.finish(claim, outcome, disableAfter);
  }
}
