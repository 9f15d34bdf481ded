/**
 * A revocation that lands while a refresh waits to rotate (another instance
 * revoking the token, a password change ending every token): the refresh
 * read the token while it was still good, but the rotation finds it revoked
 * and refuses it (RFC 7009 §2.2: a revoked token is invalid from then on).
 * It is not taken for a replay of a rotated token, and nothing is issued.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectBody, obtainTokens, refreshRequest, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { holdWriteLock } from '../helpers/write-lock.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(STORE_KINDS)('a refresh token revoked while its rotation waits (%s)', (kind) => {
  let server: FlowServer;
  beforeAll(async () => {
    // Waits on the lock far longer than the test holds it, so that the refresh never gives up with a 503 on a busy machine.
    server = await startFlowServer(kind, { SQLITE_BUSY_TIMEOUT_MS: '30000', DB_LOCK_TIMEOUT_MS: '30000' });
  });
  afterAll(() => server?.stop());

  it('is refused as revoked, not replayed, and nothing is issued', async () => {
    const { flow, tokens } = await obtainTokens(server);
    const lock = await holdWriteLock(server.databaseUrl);
    let committed = false;
    try {
      // The refresh reads the token, still unused and unrevoked, then waits for the lock to rotate it.
      const attempt = refreshRequest(server, flow, tokens.refresh_token!);
      await pause(1_000);
      await lock.commitWith(`UPDATE tokens SET revoked_at = ${Date.now()} WHERE revoked_at IS NULL`);
      committed = true;
      expectBody(await attempt, 400, { error: 'invalid_grant', error_description: 'The refresh token is invalid or was revoked' });
    } finally {
      if (!committed) await lock.release();
    }
    // Nothing was issued: the same token is still refused, and with the same words.
    const again = await refreshRequest(server, flow, tokens.refresh_token!);
    expectBody(again, 400, { error: 'invalid_grant', error_description: 'The refresh token is invalid or was revoked' });
  });
});
