import type { ClientRegistration } from '../types.ts';

/** Table shapes as Kysely sees them. Times are epoch milliseconds. */
export interface UsersTable {
  id: string;
  email: string;
  name: string;
  role: string;
  password_hash: string;
  created_at: number;
  updated_at: number;
}

export interface ClientsTable {
  id: string;
  secret_hash: string | null;
  metadata: string;
  created_at: number;
  /** When the client last obtained a token; null: never. */
  last_used_at: number | null;
  /** Who registered it (migration 008). */
  registration: ClientRegistration;
}

export interface CodesTable {
  hash: string;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  scope: string;
  resource: string | null;
  nonce: string | null;
  code_challenge: string;
  auth_time: number;
  family_id: string;
  expires_at: number;
  created_at: number;
  consumed_at: number | null;
}

export interface DeviceAuthorizationsTable {
  hash: string;
  user_code_hash: string;
  client_id: string;
  scope: string;
  resource: string | null;
  status: string;
  user_id: string | null;
  auth_time: number | null;
  family_id: string;
  poll_interval: number;
  last_polled_at: number | null;
  expires_at: number;
  created_at: number;
}

export interface TokensTable {
  hash: string;
  kind: string;
  client_id: string;
  user_id: string;
  scope: string;
  resource: string | null;
  family_id: string;
  auth_time: number;
  expires_at: number;
  created_at: number;
  revoked_at: number | null;
  rotated_at: number | null;
  salt: string | null;
}

export interface SessionsTable {
  hash: string;
  user_id: string;
  auth_time: number;
  expires_at: number;
}

export interface PasswordFailuresTable {
  hash: string;
  failures: number;
  blocked_until: number;
  expires_at: number;
  /** Password checks begun and not finished (migration 017), forgotten at pending_until. */
  pending: number;
  pending_until: number;
}

export interface IdempotencyKeysTable {
  hash: string;
  fingerprint: string;
  status: number | null;
  response: string | null;
  created_at: number;
  expires_at: number;
}

export interface ActivityTable {
  id: string;
  at: number;
  event: string;
  user_id: string | null;
  client_id: string | null;
  client_name: string | null;
  client_kind: string | null;
  via: string;
  operation: string;
  record_type: string | null;
  record_id: string | null;
  /** JSON array of field names. */
  fields: string;
}

/** A metric's total over one period (analytics-rule.ts); bigint, read back as a string on PostgreSQL. */
export interface AnalyticsCountersTable {
  period: string;
  metric: string;
  dimension: string;
  value: number | string;
}

/** How many rows make a student active in a period; a row exists only while that is more than 0. */
export interface AnalyticsActiveTable {
  period: string;
  student_id: string;
  n: number;
}

/** Counts kept current by triggers (migration 018): `open_clients`. bigint, a string on PostgreSQL. */
export interface CountersTable {
  name: string;
  value: number | string;
}

export interface GrantsTable {
  user_id: string;
  client_id: string;
  scope: string;
  created_at: number;
  updated_at: number;
  expires_at: number | null;
}

export interface SigningKeysTable {
  kid: string;
  alg: string;
  public_jwk: string;
  sealed_private_jwk: string;
  created_at: number;
  retired_at: number | null;
}

export interface SettingsTable {
  name: string;
  value: string;
  updated_at: number;
}

export interface FilesTable {
  id: string;
  name: string;
  content_type: string;
  size: number;
  sha256: string;
  uploaded_by: string | null;
  created_at: number;
  updated_at: number;
}

export interface WebhookSubscriptionsTable {
  id: string;
  url: string;
  /** JSON array of event types. */
  events: string;
  description: string | null;
  sealed_secret: string;
  enabled: number;
  disabled_reason: string | null;
  failed_deliveries: number;
  created_at: number;
  updated_at: number;
}

export interface WebhookEventsTable {
  id: string;
  type: string;
  payload: string;
  created_at: number;
}

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  subscription_id: string;
  status: string;
  attempts: number;
  next_attempt_at: number | null;
  lease_until: number | null;
  last_attempt_at: number | null;
  last_status_code: number | null;
  last_duration_ms: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export interface Database {
  users: UsersTable;
  clients: ClientsTable;
  authorization_codes: CodesTable;
  device_authorizations: DeviceAuthorizationsTable;
  tokens: TokensTable;
  sessions: SessionsTable;
  password_failures: PasswordFailuresTable;
  grants: GrantsTable;
  signing_keys: SigningKeysTable;
  settings: SettingsTable;
  files: FilesTable;
  idempotency_keys: IdempotencyKeysTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  activity: ActivityTable;
  analytics_counters: AnalyticsCountersTable;
  analytics_active: AnalyticsActiveTable;
  counters: CountersTable;
}
