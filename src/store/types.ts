/**
 * The store: narrow repositories, each with a written contract. One Kysely
 * implementation serves SQLite and PostgreSQL (src/store/kysely/); one
 * contract suite (test/store/contract.test.ts) runs against both.
 *
 * Conventions: times are epoch milliseconds (numbers on both stores);
 * credentials (tokens, codes, client secrets, session ids) are passed in and
 * stored only as SHA-256 hashes; nothing here knows a plaintext credential.
 */
import type { Role } from '../access/roles.ts';
import type { ApplicationType, ClientAuthMethod, GrantType, ResponseType, SigningAlg } from '../util/authorization-server.ts';

export interface User {
  id: string;
  email: string;
  name: string;
  role: Role;
  passwordHash: string;
  createdAt: number;
  updatedAt: number;
}

export interface UserStore {
  /** Contract: throws DuplicateError when the (lower-cased) email is taken. */
  create(user: User): Promise<void>;
  findByEmail(email: string): Promise<User | undefined>;
  findById(id: string): Promise<User | undefined>;
  list(): Promise<User[]>;
  /** Whether there is a user at all: `serve` asks at every start, so it reads one row, whatever the count. */
  any(): Promise<boolean>;
  /** Contract: returns false when no such user exists. */
  setPassword(id: string, passwordHash: string, now: number): Promise<boolean>;
  /** Contract: replaces the display name and updatedAt; returns false when no such user exists. */
  setName(id: string, name: string, now: number): Promise<boolean>;
}

/** Registered client metadata, as echoed by the registration endpoint (RFC 7591 §3.2.1). */
export interface ClientMetadata {
  client_name?: string;
  redirect_uris: string[];
  grant_types: GrantType[];
  response_types: ResponseType[];
  token_endpoint_auth_method: ClientAuthMethod;
  application_type: ApplicationType;
  scope?: string;
  client_uri?: string;
  logo_uri?: string;
  tos_uri?: string;
  policy_uri?: string;
  software_id?: string;
  software_version?: string;
  contacts?: string[];
  /** OIDC Dynamic Registration §2; the first of the supported algorithms when absent. */
  id_token_signed_response_alg?: SigningAlg;
}

/**
 * Who registered a client: `open`, itself at the registration endpoint
 * (RFC 7591; loopback redirect URIs only); `operator`, the school with
 * `lyceum clients add` (https and private-use-scheme redirect URIs too;
 * never purged, and not counted against the open-registration cap).
 */
export type ClientRegistration = 'open' | 'operator';

export interface Client {
  id: string;
  secretHash: string | null;
  metadata: ClientMetadata;
  createdAt: number;
  /** When the client last obtained a token, to the minute; null: never. Stores always fill it in. */
  lastUsedAt?: number | null;
  /** Who registered it; `open` when absent. Stores always fill it in. */
  registration?: ClientRegistration;
}

export interface ClientStore {
  create(client: Client): Promise<void>;
  /**
   * Contract: creates the client only while fewer than `maxClients` are
   * registered through open registration (operator clients and clients
   * saved from a metadata document do not count); false when the cap is
   * reached. Racing callers (in one process
   * or several on one database) never together pass the cap.
   */
  createWithinCap(client: Client, maxClients: number): Promise<boolean>;
  /**
   * Contract: records that the client obtained a token at `now`. Writes only
   * when the stored time is absent or at least a minute older, so a burst of
   * token requests costs one write a minute.
   */
  markUsed(id: string, now: number): Promise<void>;
  /**
   * Deletes open-registration clients that never obtained a token (no
   * lastUsedAt, no token) and were registered before `registeredBefore`
   * (operator clients are never purged), with their codes, in
   * small batches; returns how many.
   */
  purgeNeverUsed(registeredBefore: number): Promise<number>;
  /**
   * Contract: stores a client known by its metadata document: creates it, or
   * replaces the metadata of the one with this id, keeping its createdAt and
   * lastUsedAt (and so its codes, tokens and consents). Racing callers leave
   * one row. It never counts against the registration cap.
   */
  saveFromDocument(id: string, metadata: ClientMetadata, now: number): Promise<void>;
  find(id: string): Promise<Client | undefined>;
  list(): Promise<Client[]>;
  /** Contract: deletes the client with its codes, tokens and grants; false if it did not exist. */
  delete(id: string): Promise<boolean>;
}

export interface AuthorizationCode {
  hash: string;
  clientId: string;
  userId: string;
  redirectUri: string;
  scope: string;
  resource: string | null;
  nonce: string | null;
  codeChallenge: string;
  authTime: number;
  /** Every token issued from this code shares it; a replay revokes the family. */
  familyId: string;
  expiresAt: number;
  createdAt: number;
}

export type ConsumeResult =
  | { status: 'consumed'; code: AuthorizationCode }
  | { status: 'already_consumed'; code: AuthorizationCode }
  | { status: 'unknown' };

export interface CodeStore {
  save(code: AuthorizationCode): Promise<void>;
  /**
   * Contract: atomically marks the code used. Exactly one caller ever gets
   * 'consumed' for a hash, however many race; later ones get
   * 'already_consumed'. The winner's `issue` runs inside the same transaction
   * and the tokens it returns are stored with the consumption, so a racing
   * replay that revokes the code's family always sees them. Expiry is NOT checked here.
   */
  consume(hash: string, now: number, issue?: (code: AuthorizationCode) => Token[]): Promise<ConsumeResult>;
  /** Deletes codes that expired before `before`; returns how many. */
  purgeExpired(before: number): Promise<number>;
}

export interface Token {
  hash: string;
  kind: 'access' | 'refresh';
  clientId: string;
  userId: string;
  scope: string;
  /** RFC 8707 audience; null means good for every Lyceum resource. */
  resource: string | null;
  familyId: string;
  authTime: number;
  expiresAt: number;
  createdAt: number;
  revokedAt: number | null;
  /** Refresh tokens: when the exchange for its successor was committed (the grace window's start). */
  rotatedAt: number | null;
  /** Refresh tokens: random salt from which the successor is derived. */
  salt: string | null;
}

export type RotateResult =
  | { status: 'rotated'; token: Token }
  | { status: 'already_rotated'; token: Token }
  | { status: 'unusable'; token?: Token };

export interface TokenStore {
  /** Contract: inserts each token; a hash already present is left as it is (idempotent). */
  insert(tokens: Token[]): Promise<void>;
  find(hash: string): Promise<Token | undefined>;
  /**
   * Contract: atomically marks a live refresh token rotated and inserts its
   * successors in the same transaction. Exactly one of racing callers gets
   * 'rotated'. A token already rotated gives 'already_rotated' (successors
   * untouched); a revoked or unknown one gives 'unusable'. Expiry is NOT checked.
   * `clock` is read inside the transaction, once the claim got through: the
   * rotation is stamped with that time, not with the request's start.
   */
  rotate(hash: string, clock: () => number, successors: Token[]): Promise<RotateResult>;
  /** Contract: revokes one token; false if unknown or already revoked. */
  revoke(hash: string, now: number): Promise<boolean>;
  /** Revokes every live token of a family; returns how many. */
  revokeFamily(familyId: string, now: number): Promise<number>;
  /** Revokes every live token of a user at a client (used when consent is withdrawn). */
  revokeForGrant(userId: string, clientId: string, now: number): Promise<number>;
  /** Revokes every live token of a user at every client (a password change); returns how many. */
  revokeForUser(userId: string, now: number): Promise<number>;
  /** Deletes tokens expired or revoked before `before`; returns how many. */
  purgeExpired(before: number): Promise<number>;
}

export interface Session {
  hash: string;
  userId: string;
  authTime: number;
  expiresAt: number;
}

export interface SessionStore {
  create(session: Session): Promise<void>;
  /** Contract: returns the session only while now < expiresAt. */
  findLive(hash: string, now: number): Promise<Session | undefined>;
  delete(hash: string): Promise<void>;
  /** Deletes every session of the user except the one hashed `exceptHash` (a password change); returns how many. */
  deleteForUser(userId: string, exceptHash?: string): Promise<number>;
  purgeExpired(before: number): Promise<number>;
}

/** The answer to a claimed password check (src/users/sign-in-throttle.ts). */
export interface PasswordCheckClaim {
  /** false: the account is waiting; check no password before blockedUntil. */
  allowed: boolean;
  /** Failures counted so far, this claim included when allowed. */
  failures: number;
  /** Allowed: the end of the wait this check starts if it fails (now when none). Refused: the end of the current wait. */
  blockedUntil: number;
}

/**
 * Failed password checks, keyed by a hash of the account's normalized email
 * (for emails without an account too). Shared by every instance on the store.
 */
export interface PasswordFailureStore {
  /**
   * Contract: atomically, however many instances race for one key: while
   * the key waits (now < blockedUntil) refuses and changes nothing;
   * otherwise counts the check as a failure (from 1 again once the count
   * has expired), sets blockedUntil to now + delayFor(failures) and keeps
   * the count until `keepMs` after that. A check that then succeeds calls
   * clear(). Counting before the check means a burst of parallel guesses
   * meets the wait as soon as enough of them are counted.
   */
  claim(key: string, now: number, delayFor: (failures: number) => number, keepMs: number): Promise<PasswordCheckClaim>;
  /** Forgets the key's failures (a correct password). */
  clear(key: string): Promise<void>;
  /** Deletes counts that expired before `before`; returns how many. */
  purgeExpired(before: number): Promise<number>;
}

/** A user's consent to a client: the connected-apps list. */
export interface Grant {
  userId: string;
  clientId: string;
  scope: string;
  createdAt: number;
  updatedAt: number;
}

export interface GrantStore {
  /** Contract: creates or replaces the user's grant to the client. */
  upsert(grant: Grant): Promise<void>;
  find(userId: string, clientId: string): Promise<Grant | undefined>;
  listForUser(userId: string): Promise<Grant[]>;
  /**
   * Contract: deletes the grant and, in the same transaction, every authorization
   * code of that user at that client, so no code outlives the consent it came
   * from; false if there was no grant. The caller revokes the tokens after.
   */
  delete(userId: string, clientId: string): Promise<boolean>;
}

/** An ID token signing key; the private half stays sealed (a compact JWE) in the store. */
export interface SigningKey {
  kid: string;
  alg: SigningAlg;
  publicJwk: Record<string, unknown>;
  sealedPrivateJwk: string;
  createdAt: number;
  retiredAt: number | null;
}

export interface SigningKeyStore {
  insert(key: SigningKey): Promise<void>;
  /** Every key not retired, and retired ones with retiredAt >= `retiredSince`, newest first. */
  listPublished(retiredSince: number): Promise<SigningKey[]>;
  /** Contract: marks every current key of `alg` retired except `keepKid`, in one statement. */
  retireOthers(alg: SigningKey['alg'], keepKid: string, now: number): Promise<number>;
}

export type Row = Record<string, unknown>;
export type Condition = [column: string, op: '=' | '>=' | '<' | 'in', value: unknown];

export interface ListQuery {
  where: Condition[];
  /** Case-insensitive substring match on any of these columns. */
  search?: { columns: string[]; text: string };
  /** Ascending by this column, ties broken by id. */
  sort: string;
  limit: number;
  /** Continue after this (sort value, id) pair: keyset pagination, stable under inserts. */
  after?: [unknown, string];
}

/**
 * The platform's record tables (src/platform/areas.ts), reached by table name.
 * Rows are plain column maps: JSON as text, booleans 0/1, times epoch ms.
 */
export interface RecordStore {
  /** Returns up to `limit` rows and, when more exist, the key to continue after. */
  list(table: string, query: ListQuery): Promise<{ rows: Row[]; next?: [unknown, string] }>;
  get(table: string, id: string): Promise<Row | undefined>;
  /**
   * Contract: throws DuplicateError when a unique column is taken. `events`
   * are written to the webhook outbox in the same transaction as the row.
   */
  insert(table: string, row: Row, events?: OutboxEvent[]): Promise<void>;
  /**
   * Contract: returns the updated row, or undefined for an unknown id; DuplicateError as insert.
   * `events` is given the row before and after the change and what it returns is written to the
   * webhook outbox in the same transaction as the change.
   */
  update(table: string, id: string, patch: Row, events?: (before: Row, after: Row) => OutboxEvent[]): Promise<Row | undefined>;
  delete(table: string, id: string): Promise<boolean>;
  count(table: string, where: Condition[]): Promise<number>;
  /** Every row matching, only the named columns: for reports over a school's data. */
  select(table: string, columns: string[], where: Condition[]): Promise<Row[]>;
  /** Deletes every row of the tables named (demo re-seed). */
  clear(tables: string[]): Promise<void>;
}

/** The webhook events of a progress change, given the change and the enrollment row before it. */
export type ProgressEvents = (change: ProgressChange, before: Row) => OutboxEvent[];

/** A completion as the progress store reads it back. */
export interface LessonCompletion {
  enrollmentId: string;
  lessonId: string;
  courseId: string;
  completedAt: number;
}

/** An enrollment's progress after a completion or an undo, with what the change did. */
export interface ProgressChange {
  /** The enrollment row as it now is. */
  enrollment: Row;
  /** The lesson's completion, or null after an undo. */
  completion: LessonCompletion | null;
  /** False when the lesson already was (complete) or was not (undo) completed: nothing was written. */
  changed: boolean;
  /** Completed lessons of the course (lessons that still exist) and the course's lessons. */
  completedLessons: number;
  totalLessons: number;
}

/**
 * Per-lesson progress of enrollments. A completion or an undo and the
 * enrollment's `progress_percent` and `completed_at` are written in one
 * transaction, so that anything else done with the change (an event for
 * subscribers) can join that transaction and never see one without the other.
 */
export interface ProgressStore {
  /**
   * Contract: marks `lessonId` (a lesson of the enrollment's course) completed at `now` unless it
   * already is, then recomputes the enrollment's percent: completed lessons of the course that still
   * exist over the course's lessons, rounded down; 100 and `completed_at` only when every lesson is
   * completed (the first time: `completed_at` is kept while it stays so). Undefined for an unknown enrollment.
   * Racing calls for one enrollment are serialised on its row, so the last one counts every completion.
   * `events` (given the change and the enrollment row before it) are written to the webhook outbox in
   * the same transaction.
   */
  complete(enrollmentId: string, lessonId: string, courseId: string, now: number, events?: ProgressEvents): Promise<ProgressChange | undefined>;
  /** Contract: as complete, removing the completion; `completed_at` is cleared when a lesson is left undone. */
  uncomplete(enrollmentId: string, lessonId: string, now: number): Promise<ProgressChange | undefined>;
  /** The enrollment's completions of lessons that still exist, oldest first. */
  completions(enrollmentId: string): Promise<LessonCompletion[]>;
}

/** An event for webhook receivers, written to the outbox with the change that caused it. */
export interface OutboxEvent {
  /** `msg_…`: the webhook-id header, the same for every attempt and receiver. */
  id: string;
  type: string;
  /** The JSON body receivers get, exactly as it is signed. */
  payload: string;
  createdAt: number;
}

export interface WebhookSubscription {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  /** The signing secret as a compact JWE (src/keys/keyring.ts); never stored in clear. */
  sealedSecret: string;
  enabled: boolean;
  disabledReason: string | null;
  /** Deliveries in a row that ran out of attempts; a success sets it back to 0. */
  failedDeliveries: number;
  createdAt: number;
  updatedAt: number;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDelivery {
  id: string;
  eventId: string;
  eventType: string;
  subscriptionId: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number | null;
  lastAttemptAt: number | null;
  lastStatusCode: number | null;
  lastDurationMs: number | null;
  lastError: string | null;
  createdAt: number;
}

/** A delivery a worker has claimed: what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  payload: string;
  /** This attempt's number, from 1. */
  attempt: number;
  subscription: Pick<WebhookSubscription, 'id' | 'url' | 'sealedSecret'>;
}

/** How an attempt ended: delivered, or failed and retried at `retryAt` (null: no attempts left). */
export type AttemptOutcome =
  | { ok: true; statusCode: number; durationMs: number; at: number }
  | { ok: false; statusCode: number | null; durationMs: number; at: number; error: string; retryAt: number | null };

export interface WebhookStore {
  create(subscription: WebhookSubscription): Promise<void>;
  find(id: string): Promise<WebhookSubscription | undefined>;
  /** How many subscriptions there are, enabled or not. */
  count(): Promise<number>;
  /** Oldest first, after the (created_at, id) cursor. */
  list(limit: number, after?: [number, string]): Promise<{ rows: WebhookSubscription[]; next?: [number, string] }>;
  /** Contract: changes the named fields; enabling clears the reason and the failure count. Undefined for an unknown id. */
  update(id: string, patch: { url?: string; events?: string[]; description?: string | null; enabled?: boolean }, now: number): Promise<WebhookSubscription | undefined>;
  /** Contract: deletes the subscription with its deliveries; false if it did not exist. */
  delete(id: string): Promise<boolean>;
  /** A subscription's deliveries, newest first, after the (created_at, id) cursor. */
  listDeliveries(subscriptionId: string, limit: number, after?: [number, string]): Promise<{ rows: WebhookDelivery[]; next?: [number, string] }>;
  findDelivery(subscriptionId: string, id: string): Promise<WebhookDelivery | undefined>;
  /** A new pending delivery of the same event to the same subscription, due at `now`. */
  redeliver(subscriptionId: string, deliveryId: string, newId: string, now: number): Promise<WebhookDelivery | undefined>;
  /**
   * Contract: claims up to `limit` pending deliveries due at `now` to enabled
   * subscriptions whose lease is absent or over, leasing each until
   * `leaseUntil` and counting the attempt. While a lease holds no other
   * caller, in this process or another on the same database, claims the row.
   */
  claimDue(now: number, leaseUntil: number, limit: number): Promise<ClaimedDelivery[]>;
  /**
   * Records an attempt's outcome and releases the lease. A failure with no
   * retry left marks the delivery failed and counts it against its
   * subscription, which is disabled (with a reason) at `disableAfter` in a row.
   */
  finish(claim: ClaimedDelivery, outcome: AttemptOutcome, disableAfter: number): Promise<void>;
  /** Deletes finished (succeeded or failed) deliveries made before `before`, then events no delivery refers to any more; returns the deliveries deleted. */
  purgeFinished(before: number): Promise<number>;
}

export interface SettingsStore {
  get(name: string): Promise<Record<string, unknown> | undefined>;
  put(name: string, value: Record<string, unknown>, now: number): Promise<void>;
}

export interface StoredFile {
  id: string;
  name: string;
  contentType: string;
  size: number;
  sha256: string;
  uploadedBy: string | null;
  createdAt: number;
}

/** What insertWithinQuota did: stored, or refused with the bytes already used. */
export type QuotaInsertResult = { stored: true } | { stored: false; usedBytes: number };

export interface FileStore {
  insert(file: StoredFile): Promise<void>;
  /**
   * Contract: inserts the file only if the sizes of all stored files plus its
   * own stay within `quotaBytes`. Racing callers (in one process or several on
   * one database) never together pass the quota: the check and the insert are
   * one atomic step.
   */
  insertWithinQuota(file: StoredFile, quotaBytes: number): Promise<QuotaInsertResult>;
  /** Total size in bytes of the stored files. */
  usedBytes(): Promise<number>;
  find(id: string): Promise<StoredFile | undefined>;
  list(limit: number): Promise<StoredFile[]>;
  delete(id: string): Promise<boolean>;
}

/** An Idempotency-Key's row: the request's fingerprint and, once it finished, its sealed answer. */
export interface IdempotencyRecord {
  /** SHA-256 of caller, method, path and key. */
  hash: string;
  /** SHA-256 of the request body as the caller sent it (src/platform/idempotency.ts). */
  fingerprint: string;
  /** The answer's status; null while the first request still runs. */
  status: number | null;
  /** The answer (status line aside), sealed; null while the first request still runs. */
  response: string | null;
  createdAt: number;
  expiresAt: number;
}

export type IdempotencyClaim = { claimed: true } | { claimed: false; existing: IdempotencyRecord };

export interface IdempotencyKeyStore {
  /**
   * Contract: inserts the row as running (status null) unless the hash is
   * taken; of racing claims, on any number of instances, exactly one gets
   * `claimed`. A running row created before `staleBefore` (its request died
   * with its process) is taken over by one claimer. Otherwise the row found.
   */
  claim(row: Pick<IdempotencyRecord, 'hash' | 'fingerprint' | 'createdAt' | 'expiresAt'>, staleBefore: number): Promise<IdempotencyClaim>;
  /** Contract: stores the answer of a running row; false when there is none (it was released). */
  complete(hash: string, status: number, response: string): Promise<boolean>;
  /** Contract: deletes a running row (its request failed), so that the key may be used again. */
  release(hash: string): Promise<void>;
  find(hash: string): Promise<IdempotencyRecord | undefined>;
  /** Deletes rows whose expiresAt is before `before`; returns how many. */
  purgeExpired(before: number): Promise<number>;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  users: UserStore;
  clients: ClientStore;
  codes: CodeStore;
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
  /**
   * What a request answers for an error this store raised: the 503
   * temporarily_unavailable with Retry-After (src/store/unavailable.ts) when
   * the database could not serve it in time (unreachable, no connection slot,
   * a statement or lock bound hit), the error itself otherwise. The error
   * handler and the MCP tools apply it to what they catch.
   */
  fault(err: unknown): unknown;
  /** Applies pending migrations; safe to call from several instances at once. */
  migrate(): Promise<void>;
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

