/**
 * Without a grace window (REFRESH_GRACE_SECONDS=0) two refreshes of one
 * token are one too many, even when both read it before either rotated it:
 * the one that rotates second ends the family (RFC 9700 §4.14.2), it is not
 * handed the successor the first one got.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectBody, obtainTokens, refreshRequest, startFlowServer, type FlowServer, type FormResponse } from '../helpers/flow.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { holdWriteLock } from '../helpers/write-lock.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(STORE_KINDS)('two refreshes of one token without a grace window (%s)', (kind) => {
  let server: FlowServer;
  beforeAll(async () => {
    // Waits on the lock far longer than the test holds it, so that no refresh gives up with a 503 on a busy machine.
    server = await startFlowServer(kind, { REFRESH_GRACE_SECONDS: '0', SQLITE_BUSY_TIMEOUT_MS: '30000', DB_LOCK_TIMEOUT_MS: '30000' });
  });
  afterAll(() => server?.stop());

  it('ends the family when the refresh that lost the race to rotate comes through, though it read the token while still unused', async () => {
    const { flow, tokens } = await obtainTokens(server);
    const lock = await holdWriteLock(server.databaseUrl);
    let released = false;
    let answers: FormResponse[];
    try {
      // Both read the token while the lock holds their rotations back.
      const attempts = [refreshRequest(server, flow, tokens.refresh_token!), refreshRequest(server, flow, tokens.refresh_token!)];
      await pause(1_000);
      await lock.release();
      released = true;
      answers = await Promise.all(attempts);
    } finally {
      if (!released) await lock.release();
    }
    const [won, lost] = [...answers].sort((a, b) => a.status - b.status);
    expect(won!.status, won!.text).toBe(200);
    expectBody(lost!, 400, { error: 'invalid_grant', error_description: 'The refresh token was already used' });
    // The whole family went, the successor the winner got included.
    expectBody(await refreshRequest(server, flow, String(won!.json.refresh_token)), 400, {
      error: 'invalid_grant',
      error_description: 'The refresh token is invalid or was revoked',
    });
  });
});
