/**
 * One account signing in on several connections at once with the right
 * password (two tabs, a script and a browser, a shared school account):
 * every attempt gets its session. The failure count claims each check before
 * the password is verified (src/users/sign-in-throttle.ts), so a claim that
 * started no wait once stored one ending "now" and refused a racing claim
 * whose clock read came a moment earlier: a 429 for a correct password.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FromAddress } from '../helpers/from-address.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

// Rounds of parallel sign-ins, fewer per round than the free failures (default 5): a burst past
// them is the guessing case, which test/web/password-guessing.test.ts covers.
const ROUNDS = 25;
const AT_ONCE = 4;

describe.each(STORE_KINDS)('concurrent correct sign-ins of one account (%s)', (kind) => {
  let server: FlowServer;
  const clients: FromAddress[] = [];

  beforeAll(async () => {
    server = await startFlowServer(kind, { TRUST_PROXY: 'false' });
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) c.close();
    await server?.stop();
  });

  it(`${ROUNDS} rounds of ${AT_ONCE} at once: every one is signed in, none is told to wait`, async () => {
    const user = await server.addUser('student');
    for (let n = 0; n < AT_ONCE; n++) clients.push(new FromAddress(server.issuer, `127.0.0.${n + 2}`));
    const statuses: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const answers = await Promise.all(clients.map((c) => c.signIn(user.email, user.password)));
      statuses.push(...answers.map((a) => a.status));
    }
    expect(statuses.filter((s) => s !== 303)).toEqual([]);
  }, 60_000);
});
