import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Token, TokenStore } from '../types.ts';
import { compiledLookup } from './compiled-lookup.ts';
import type { Database, TokensTable } from './schema.ts';

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

export function tokenRow(t: Token): Insertable<TokensTable> {
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

/** Bounds of the rows one purge statement deletes (or, walking for revoked tokens, examines). */
export const PURGE_BATCH = { first: 200, min: 50, max: 5000 } as const;
/** What one purge statement may take: better-sqlite3 blocks the event loop (and holds the writer) meanwhile. */
const PURGE_STATEMENT_MS = 1;
/** Pause after each statement, as a multiple of its time: the purge gets at most a quarter of the process. */
const PURGE_PAUSE_FACTOR = 3;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `step` with a row limit until it reports fewer rows than asked,
 * sizing each batch from how long the previous one took so no statement runs
 * much longer than PURGE_STATEMENT_MS (a slow batch shrinks the next one at
 * once; a fast one at most doubles it), and pausing three times as long as
 * it ran in between. Whatever the backlog, a purge never holds the SQLite
 * writer (or PostgreSQL row locks) for long, and a request arriving during a
 * statement waits a few milliseconds at most. Returns the rows deleted.
 */
export async function purgeInBatches(step: (limit: number) => Promise<{ deleted: number; examined: number }>): Promise<number> {
  let limit: number = PURGE_BATCH.first;
  let total = 0;
  for (;;) {
    const started = performance.now();
    const { deleted, examined } = await step(limit);
    const took = performance.now() - started;
    total += deleted;
    if (examined < limit) return total;
    const scaled = Math.round((limit * PURGE_STATEMENT_MS) / Math.max(took, 0.1));
    limit = Math.min(PURGE_BATCH.max, Math.max(PURGE_BATCH.min, Math.min(limit * 2, scaled)));
    await pause(Math.max(1, PURGE_PAUSE_FACTOR * took));
  }
}

export function kyselyTokenStore(db: Kysely<Database>): TokenStore {
  const insert = async (q: Kysely<Database>, tokens: Token[]) => {
    if (tokens.length === 0) return;
    await q
      .insertInto('tokens')
      .values(tokens.map(tokenRow))
      .onConflict((oc) => oc.column('hash').doNothing())
      .execute();
  };

  // The lookup behind every bearer-protected request, built and compiled once; only the hash changes.
  const findByHash = compiledLookup(db, db.selectFrom('tokens').selectAll().where('hash', '=', ''));

  return {
    insert: (tokens) => insert(db, tokens),
    async find(hash) {
      const row = await findByHash(hash);
      return row && toToken(row);
    },
    async rotate(hash, now, successors) {
      return db.transaction().execute(async (trx) => {
        const won = await trx
          .updateTable('tokens')
          .set({ rotated_at: now })
          .where('hash', '=', hash)
          .where('kind', '=', 'refresh')
          .where('rotated_at', 'is', null)
          .where('revoked_at', 'is', null)
          .returningAll()
          .executeTakeFirst();
        if (won) {
          await insert(trx, successors);
          return { status: 'rotated' as const, token: toToken(won) };
        }
        const row = await trx.selectFrom('tokens').selectAll().where('hash', '=', hash).executeTakeFirst();
        if (row && row.kind === 'refresh' && row.revoked_at === null && row.rotated_at !== null) {
          return { status: 'already_rotated' as const, token: toToken(row) };
        }
        return { status: 'unusable' as const, ...(row ? { token: toToken(row) } : {}) };
      });
    },
    async revoke(hash, now) {
      const r = await db
        .updateTable('tokens')
        .set({ revoked_at: now })
        .where('hash', '=', hash)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    async revokeFamily(familyId, now) {
      const r = await db
        .updateTable('tokens')
        .set({ revoked_at: now })
        .where('family_id', '=', familyId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    async revokeForGrant(userId, clientId, now) {
      const r = await db
        .updateTable('tokens')
        .set({ revoked_at: now })
        .where('user_id', '=', userId)
        .where('client_id', '=', clientId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    async purgeExpired(before) {
      // Expired tokens, found through the expires_at index, a batch per statement.
      const expired = await purgeInBatches(async (limit) => {
        const r = await db
          .deleteFrom('tokens')
          .where('hash', 'in', db.selectFrom('tokens').select('hash').where('expires_at', '<', before).limit(limit))
          .executeTakeFirst();
        const deleted = Number(r.numDeletedRows);
        return { deleted, examined: deleted };
      });
      // Revoked ones not yet expired: revoked_at has no index, so walk the primary key in bounded
      // ranges instead of letting one statement scan the whole table.
      let after = '';
      const revoked = await purgeInBatches(async (limit) => {
        const keys = await db.selectFrom('tokens').select('hash').where('hash', '>', after).orderBy('hash').limit(limit).execute();
        const last = keys.at(-1)?.hash;
        if (last === undefined) return { deleted: 0, examined: 0 };
        const r = await db
          .deleteFrom('tokens')
          .where('hash', '>', after)
          .where('hash', '<=', last)
          .where('revoked_at', '<', before)
          .executeTakeFirst();
        after = last;
        return { deleted: Number(r.numDeletedRows), examined: keys.length };
      });
      return expired + revoked;
    },
  };
}
