/**
 * The store: narrow repositories, each with a written contract. One Kysely
 * implementation serves SQLite and PostgreSQL (src/store/kysely/); one
 * contract suite (test/store/contract/, a file per repository) runs against both.
 *
 * Conventions: times are epoch milliseconds (numbers on both stores);
 * credentials (tokens, codes, client secrets, session ids) are passed in and
 * stored only as SHA-256 hashes; nothing here knows a plaintext credential.
 */
import type { UserStore } from './repositories/users.ts';
import type { ClientStore } from './repositories/clients.ts';
import type { CodeStore } from './repositories/codes.ts';
import type { DeviceAuthorizationStore } from './repositories/device-authorizations.ts';
import type { TokenStore } from './repositories/tokens.ts';
import type { SessionStore } from './repositories/sessions.ts';
import type { PasswordFailureStore } from './repositories/password-failures.ts';
import type { GrantStore } from './repositories/grants.ts';
import type { SigningKeyStore } from './repositories/signing-keys.ts';
import type { RecordStore } from './repositories/records.ts';
import type { ProgressStore } from './repositories/progress.ts';
import type { WebhookStore } from './repositories/webhooks.ts';
import type { FileStore, SettingsStore } from './repositories/settings-files.ts';
import type { IdempotencyKeyStore } from './repositories/idempotency-keys.ts';
import type { ActivityStore } from './repositories/activity.ts';
import type { AnalyticsStore } from './repositories/analytics.ts';
import type { IndexSpec } from './repositories/indexes.ts';

export type * from './repositories/users.ts';
export type * from './repositories/clients.ts';
export type * from './repositories/codes.ts';
export type * from './repositories/device-authorizations.ts';
export type * from './repositories/tokens.ts';
export type * from './repositories/sessions.ts';
export type * from './repositories/password-failures.ts';
export type * from './repositories/grants.ts';
export type * from './repositories/signing-keys.ts';
export type * from './repositories/records.ts';
export type * from './repositories/progress.ts';
export type * from './repositories/webhooks.ts';
export type * from './repositories/settings-files.ts';
export type * from './repositories/idempotency-keys.ts';
export type * from './repositories/activity.ts';
export type * from './repositories/analytics.ts';
export type * from './repositories/indexes.ts';

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  users: UserStore;
  clients: ClientStore;
  codes: CodeStore;
  deviceAuthorizations: DeviceAuthorizationStore;
  tokens: TokenStore;
  sessions: SessionStore;
  passwordFailures: PasswordFailureStore;
  grants: GrantStore;
  signingKeys: SigningKeyStore;
  records: RecordStore;
  progress: ProgressStore;
  settings: SettingsStore;
  files: FileStore;
  idempotencyKeys: IdempotencyKeyStore;
  webhooks: WebhookStore;
  activity: ActivityStore;
  analytics: AnalyticsStore;
  /**
   * What a request answers for an error this store raised: the 503
   * temporarily_unavailable with Retry-After (src/store/unavailable.ts) when
   * the database could not serve it in time (unreachable, no connection slot,
   * a statement or lock bound hit), the error itself otherwise. The error
   * handler and the MCP tools apply it to what they catch.
   */
  fault(err: unknown): unknown;
  /**
   * Applies pending migrations, then makes sure the indexes the platform's
   * lists need exist (derived from the area declarations, src/platform/list-indexes.ts);
   * safe to call from several instances at once.
   */
  migrate(indexes?: IndexSpec[]): Promise<void>;
  /**
   * Refreshes the query planner's statistics, after a bulk load (SQLite:
   * ANALYZE over a sample of each index; PostgreSQL: VACUUM ANALYZE). Migrating does
   * it on SQLite, and its maintenance thread keeps them current.
   */
  optimize(): Promise<void>;
  /**
   * Starts the store's background housekeeping, for a server once it listens
   * (SQLite: WAL checkpoints and the purge's statements on a thread of their
   * own, src/store/sqlite/maintenance-thread.ts). A store that is not started
   * works all the same, as a CLI command's does.
   */
  startMaintenance(): void;
  /**
   * A trivial query (`select 1`): resolves when the database answers,
   * rejects when it cannot be reached. The readiness check (GET /readyz).
   */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A unique constraint was hit (e.g. a user's email). */
export class DuplicateError extends Error {
  override name = 'DuplicateError';
}
