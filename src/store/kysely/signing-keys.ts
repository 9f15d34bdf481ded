import type { Kysely } from 'kysely';
import type { SigningKeyStore } from '../types.ts';
import type { Database } from './schema.ts';
import { AUTHORIZATION_SERVER, isOneOf } from '../../util/authorization-server.ts';

export function kyselySigningKeyStore(db: Kysely<Database>): SigningKeyStore {
  return {
    async insert(k) {
      await db
        .insertInto('signing_keys')
        .values({
          kid: k.kid,
          alg: k.alg,
          public_jwk: JSON.stringify(k.publicJwk),
          sealed_private_jwk: k.sealedPrivateJwk,
          created_at: k.createdAt,
          retired_at: k.retiredAt,
        })
        .execute();
    },
    async listPublished(retiredSince) {
      const rows = await db
        .selectFrom('signing_keys')
        .selectAll()
        .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>=', retiredSince)]))
        .orderBy('created_at', 'desc')
        .orderBy('kid')
        .execute();
      return rows.map((r) => ({
        kid: r.kid,
        // A stored algorithm this server no longer knows is read as the default one.
        alg: isOneOf(AUTHORIZATION_SERVER.signingAlgs, r.alg) ? r.alg : AUTHORIZATION_SERVER.signingAlgs[0],
        publicJwk: JSON.parse(r.public_jwk) as Record<string, unknown>,
        sealedPrivateJwk: r.sealed_private_jwk,
        createdAt: Number(r.created_at),
        retiredAt: r.retired_at === null ? null : Number(r.retired_at),
      }));
    },
    async retireOthers(alg, keepKid, now) {
      const r = await db.updateTable('signing_keys').set({ retired_at: now }).where('alg', '=', alg).where('kid', '!=', keepKid).where('retired_at', 'is', null).executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
  };
}
