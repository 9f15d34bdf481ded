import { ROTATION_STAMP_SLACK_MS } from '../repositories/tokens.ts';
import { sql, type Insertable, type Kysely, type QueryCreator, type Selectable } from 'kysely';
import type { RotateResult } from '../repositories/tokens.ts';
import type { Token, TokenStore } from '../types.ts';
import { purgeBefore } from './purge.ts';
import type { Database, TokensTable } from './schema.ts';
import type { KeyLookup } from './key-lookup.ts';

function toToken(row: Selectable<TokensTable>): Token {
  return {
    hash: row.hash,
    kind: row.kind === 'refresh' ? 'refresh' : 'access',
    clientId: row.client_id,
    userId: row.user_id,
    scope: row.scope,
    resource: row.resource,
    familyId: row.family_id,
    authTime: Number(row.auth_time),
    expiresAt: Number(row.expires_at),
    createdAt: Number(row.created_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
    rotatedAt: row.rotated_at === null ? null : Number(row.rotated_at),
    salt: row.salt,
  };
}

function tokenRow(t: Token): Insertable<TokensTable> {
  return {
    hash: t.hash,
    kind: t.kind,
    client_id: t.clientId,
    user_id: t.userId,
    scope: t.scope,
    resource: t.resource,
    family_id: t.familyId,
    auth_time: t.authTime,
    expires_at: t.expiresAt,
    created_at: t.createdAt,
    revoked_at: t.revokedAt,
    rotated_at: t.rotatedAt,
    salt: t.salt,
  };
}

/** Inserts the tokens on `q` (the database or a transaction); a hash already present is left as it is. */
export async function insertTokens(q: Kysely<Database>, tokens: Token[]): Promise<void> {
  if (tokens.length === 0) return;
  await q
    .insertInto('tokens')
    .values(tokens.map(tokenRow))
    .onConflict((oc) => oc.column('hash').doNothing())
    .execute();
}

/** The claim: the refresh token is marked rotated, stamped `at`, only while it is still usable. */
const claim = (q: QueryCreator<Database>, hash: string, at: number) =>
  q.updateTable('tokens').set({ rotated_at: at }).where('hash', '=', hash).where('kind', '=', 'refresh').where('rotated_at', 'is', null).where('revoked_at', 'is', null).returningAll();

/**
 * A claim that got through: rotatedAt is the commit's time (tokenState's grace rule), so a claim
 * that waited on a lock held elsewhere is stamped again when it got through, not when it was sent.
 */
async function rotated(q: QueryCreator<Database>, claimed: Selectable<TokensTable>, clock: () => number): Promise<RotateResult> {
  const landedAt = clock();
  if (landedAt - Number(claimed.rotated_at) < ROTATION_STAMP_SLACK_MS) return { status: 'rotated', token: toToken(claimed) };
  const restamped = await q.updateTable('tokens').set({ rotated_at: landedAt }).where('hash', '=', claimed.hash).returningAll().executeTakeFirstOrThrow();
  return { status: 'rotated', token: toToken(restamped) };
}

/** Why a claim did not get through: the token was rotated already, or is revoked or unknown. */
async function notClaimed(q: QueryCreator<Database>, hash: string): Promise<RotateResult> {
  const row = await q.selectFrom('tokens').selectAll().where('hash', '=', hash).executeTakeFirst();
  if (row && row.kind === 'refresh' && row.revoked_at === null && row.rotated_at !== null) return { status: 'already_rotated', token: toToken(row) };
  return { status: 'unusable', ...(row ? { token: toToken(row) } : {}) };
}

/**
 * The rotation on PostgreSQL, in one statement: the claim and the successors' inserts are
 * data-modifying WITH queries, each insert made only when the claim returned the token, so the
 * whole rotation is one round trip and one commit instead of four round trips (begin, claim,
 * insert, commit) with the token's row locked in between. A successor that cannot be inserted
 * fails the statement, and with it the claim. The stamp is the one sent with the claim; a claim
 * that waited on the row's lock longer than the slack is stamped again when it returns.
 */
async function rotateInOneStatement(db: Kysely<Database>, hash: string, clock: () => number, successors: Token[]): Promise<RotateResult> {
  const inserts = successors.map((token, i) => {
    const row = tokenRow(token);
    return sql`, ${sql.id(`successor_${i}`)} as (
      insert into tokens (${sql.join(Object.keys(row).map((c) => sql.ref(c)))})
      select ${sql.join(Object.values(row))} where exists (select 1 from claimed)
      on conflict (hash) do nothing)`;
  });
  const { rows } = await sql<Selectable<TokensTable>>`
    with claimed as (${claim(db, hash, clock())})${sql.join(inserts, sql``)}
    select * from claimed`.execute(db);
  const claimed = rows[0];
  if (!claimed) return notClaimed(db, hash);
  return rotated(db, claimed, clock);
}

export function kyselyTokenStore(db: Kysely<Database>, lookups: KeyLookup, kind: 'sqlite' | 'postgres', maintenance: Kysely<Database> = db): TokenStore {
  const findByHash = lookups((hash: string) => db.selectFrom('tokens').selectAll().where('hash', '=', hash));
  return {
    insert: (tokens) => insertTokens(db, tokens),
    async find(hash) {
      const row = await findByHash(hash);
      return row && toToken(row);
    },
    async rotate(hash, clock, successors) {
      if (kind === 'postgres') return rotateInOneStatement(db, hash, clock, successors);
      // On SQLite the statements do not leave the process: a transaction of them costs no round trips.
      return db.transaction().execute(async (trx) => {
        const claimed = await claim(trx, hash, clock()).executeTakeFirst();
        if (!claimed) return notClaimed(trx, hash);
        await insertTokens(trx, successors);
        return rotated(trx, claimed, clock);
      });
    },
    async revoke(hash, now) {
      const r = await db.updateTable('tokens').set({ revoked_at: now }).where('hash', '=', hash).where('revoked_at', 'is', null).executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    async revokeFamily(familyId, now) {
      const r = await db.updateTable('tokens').set({ revoked_at: now }).where('family_id', '=', familyId).where('revoked_at', 'is', null).executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    async revokeForGrant(userId, clientId, now) {
      const r = await db.updateTable('tokens').set({ revoked_at: now }).where('user_id', '=', userId).where('client_id', '=', clientId).where('revoked_at', 'is', null).executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    async revokeForUser(userId, now) {
      // Found through tokens_user_client, whose first column is user_id.
      const r = await db.updateTable('tokens').set({ revoked_at: now }).where('user_id', '=', userId).where('revoked_at', 'is', null).executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    async purgeExpired(before) {
      // Expired tokens, then those revoked over a day ago, each found through its index
      // (tokens_expires_at, the partial tokens_revoked_at).
      const expired = await purgeBefore(maintenance, 'tokens', 'expires_at', before);
      const revoked = await purgeBefore(maintenance, 'tokens', 'revoked_at', before);
      return expired + revoked;
    },
  };
}
