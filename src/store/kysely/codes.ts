import type { Kysely, Selectable } from 'kysely';
import type { AuthorizationCode, CodeStore } from '../types.ts';
import type { CodesTable, Database } from './schema.ts';
import { purgeBefore } from './purge.ts';
import { insertTokens } from './tokens.ts';

function toCode(row: Selectable<CodesTable>): AuthorizationCode {
  return {
    hash: row.hash,
    clientId: row.client_id,
    userId: row.user_id,
    redirectUri: row.redirect_uri,
    scope: row.scope,
    resource: row.resource,
    nonce: row.nonce,
    codeChallenge: row.code_challenge,
    authTime: Number(row.auth_time),
    familyId: row.family_id,
    expiresAt: Number(row.expires_at),
    createdAt: Number(row.created_at),
  };
}

export function kyselyCodeStore(db: Kysely<Database>, maintenance: Kysely<Database> = db): CodeStore {
  return {
    async save(code) {
      await db
        .insertInto('authorization_codes')
        .values({
          hash: code.hash,
          client_id: code.clientId,
          user_id: code.userId,
          redirect_uri: code.redirectUri,
          scope: code.scope,
          resource: code.resource,
          nonce: code.nonce,
          code_challenge: code.codeChallenge,
          auth_time: code.authTime,
          family_id: code.familyId,
          expires_at: code.expiresAt,
          created_at: code.createdAt,
          consumed_at: null,
        })
        .execute();
    },
    async consume(hash, now, issue) {
      // One conditional UPDATE: the database decides the single winner.
      const won = await db.transaction().execute(async (trx) => {
        const row = await trx.updateTable('authorization_codes').set({ consumed_at: now }).where('hash', '=', hash).where('consumed_at', 'is', null).returningAll().executeTakeFirst();
        if (!row) return undefined;
        const code = toCode(row);
        const tokens = issue ? issue(code) : [];
        await insertTokens(trx, tokens);
        return code;
      });
      if (won) return { status: 'consumed', code: won };
      const row = await db.selectFrom('authorization_codes').selectAll().where('hash', '=', hash).executeTakeFirst();
      return row ? { status: 'already_consumed', code: toCode(row) } : { status: 'unknown' };
    },
    async purgeExpired(before) {
      return purgeBefore(maintenance, 'authorization_codes', 'expires_at', before);
    },
  };
}
