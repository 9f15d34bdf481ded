import type { Config } from '../config/index.ts';
import type { Store } from '../store/types.ts';

/** Expired (or revoked) codes, tokens and sessions are kept this long, for investigations. */
const EXPIRED_KEPT_MS = 24 * 3600 * 1000;

export interface PurgeCounts {
  codes: number;
  /** Device authorizations (RFC 8628), a day after they expired. */
  deviceAuthorizations: number;
  tokens: number;
  sessions: number;
  /** Failure counts of password checks that are forgotten (see sign-in-throttle.ts). */
  passwordFailures: number;
  /** Clients deleted because they never obtained a token within UNUSED_CLIENT_TTL_SECONDS. */
  clients: number;
  /** Idempotency-Key answers older than IDEMPOTENCY_KEY_RETENTION_SECONDS. */
  idempotencyKeys: number;
  /** Finished webhook deliveries older than WEBHOOK_LOG_DAYS. */
  webhookDeliveries: number;
  /** Activity log entries older than ACTIVITY_RETENTION_DAYS. */
  activity: number;
}

/**
 * One run of the background purge at `now`: what expired or was revoked
 * over a day ago, forgotten password-failure counts, Idempotency-Key answers past their retention, then clients registered longer than UNUSED_CLIENT_TTL_SECONDS
 * ago that never obtained a token (their codes went first, with the expired ones), and the webhook
 * delivery log past WEBHOOK_LOG_DAYS, and the activity log past ACTIVITY_RETENTION_DAYS.
 */
export async function purgeOnce(store: Store, config: Pick<Config, 'unusedClientTtl' | 'webhooks' | 'activityRetentionDays'>, now: number): Promise<PurgeCounts> {
  const before = now - EXPIRED_KEPT_MS;
  const codes = await store.codes.purgeExpired(before);
  const deviceAuthorizations = await store.deviceAuthorizations.purgeExpired(before);
  const tokens = await store.tokens.purgeExpired(before);
  const sessions = await store.sessions.purgeExpired(before);
  // A forgotten failure count holds nothing: it goes at once, so guesses at made-up emails leave few rows.
  const passwordFailures = await store.passwordFailures.purgeExpired(now);
  const clients = await store.clients.purgeNeverUsed(now - config.unusedClientTtl * 1000);
  // Each row carries its own end of retention (IDEMPOTENCY_KEY_RETENTION_SECONDS from its request).
  const idempotencyKeys = await store.idempotencyKeys.purgeExpired(now);
  const webhookDeliveries = await store.webhooks.purgeFinished(now - config.webhooks.logDays * 86_400_000);
  const activity = await store.activity.purgeBefore(now - config.activityRetentionDays * 86_400_000);
  return { codes, deviceAuthorizations, tokens, sessions, passwordFailures, clients, idempotencyKeys, webhookDeliveries, activity };
}
