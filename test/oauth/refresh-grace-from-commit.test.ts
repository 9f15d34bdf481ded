/**
 * A stall never signs users out: the refresh grace window runs from the
 * moment the rotation was committed, not from when its request started.
 * A client whose refresh waited on a locked database, and whose retries
 * queued behind it, gets one successor for all of them and keeps its session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obtainTokens, refreshRequest, refreshTokens, startFlowServer, type FlowServer, type FormResponse } from '../helpers/flow.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { holdWriteLock } from '../helpers/write-lock.ts';

const GRACE_MS = 10_000; // REFRESH_GRACE_SECONDS's default, 10

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(STORE_KINDS)('the refresh grace window runs from the rotation’s commit (%s)', (kind) => {
  let server: FlowServer;
  beforeAll(async () => {
    server = await startFlowServer(kind);
  });
  afterAll(() => server?.stop());

  it('gives every retry queued behind a stalled rotation, and a replay after it, the same successor', async () => {
    const { flow, tokens } = await obtainTokens(server);
    const restart = server.freezeClock();
    const lock = await holdWriteLock(server.databaseUrl);
    let released = false;
    try {
      // The first attempt starts at t0 and waits on the lock; the client retries at t0+5 s and t0+12 s.
      const attempts: Promise<FormResponse>[] = [refreshRequest(server, flow, tokens.refresh_token!)];
      await pause(300);
      server.advance(5_000);
      attempts.push(refreshRequest(server, flow, tokens.refresh_token!));
      await pause(300);
      server.advance(7_000);
      attempts.push(refreshRequest(server, flow, tokens.refresh_token!));
      await pause(300);
      // The stall ends at t0+15 s: more than the grace after the first attempt started.
      server.advance(3_000);
      await lock.release();
      released = true;
      const answers = await Promise.all(attempts);
      for (const a of answers) expect(a.status, a.text).toBe(200);
      const successor = answers[0]!.json.refresh_token;
      expect(answers.map((a) => a.json.refresh_token)).toEqual([successor, successor, successor]);

      // A replay inside the grace window counted from the commit still gets it.
      server.advance(GRACE_MS);
      const replay = await refreshRequest(server, flow, tokens.refresh_token!);
      expect(replay.status, replay.text).toBe(200);
      expect(replay.json.refresh_token).toBe(successor);

      // And the session goes on: the successor is not revoked.
      const next = await refreshTokens(server, flow, String(successor));
      expect(next.refresh_token).toBeTruthy();
    } finally {
      if (!released) await lock.release();
      restart();
    }
  });
});
