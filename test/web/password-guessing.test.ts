/**
 * Per-account delays after wrong passwords (src/users/sign-in-throttle.ts),
 * over real HTTP from several source addresses (127.0.0.2, .3, ...): the
 * per-address rate limit alone would let each address guess on. Small
 * settings (3 free failures, 2 s doubling to 8 s) and the server's movable
 * clock keep it quick.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FromAddress, type Answer } from '../helpers/from-address.ts';
import { obtainTokens, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { authorizeUrl, pkcePair, postForm, registerPublicClient } from '../helpers/oauth.ts';
import { freePort } from '../helpers/server.ts';
import { spawnServe } from '../helpers/spawn-serve.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { UserAgent } from '../helpers/user-agent.ts';

const SETTINGS = {
  SIGN_IN_FREE_FAILURES: '3',
  SIGN_IN_FIRST_DELAY_SECONDS: '2',
  SIGN_IN_MAX_DELAY_SECONDS: '8',
  SIGN_IN_FORGET_FAILURES_SECONDS: '60',
  TRUST_PROXY: 'false',
};

const wait = (seconds: number) => `Too many failed sign-ins for this account. Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`;
const errorMessage = (html: string) => /<p class="error"[^>]*>([\s\S]*?)<\/p>/.exec(html)?.[1]?.trim();

/** The sign-in page again, with this status and message; no session started. */
function expectSignInPage(res: Answer, status: number, message: string, retryAfter?: number) {
  expect({ status: res.status, message: errorMessage(res.text) }, res.text.slice(0, 400)).toEqual({ status, message });
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  expect(res.text).toContain('action="/oauth/sign-in"');
  expect(res.headers['retry-after']).toBe(retryAfter === undefined ? undefined : String(retryAfter));
  expect(String(res.headers['set-cookie'] ?? '')).not.toMatch(/lyceum_\d+_session=[^;]/);
}

const signedIn = (res: Answer) => {
  expect(res.status, res.text.slice(0, 400)).toBe(303);
  expect(String(res.headers['set-cookie'] ?? '')).toMatch(/lyceum_\d+_session=[^;]/);
};

describe.each(STORE_KINDS)('password guessing at one account from several addresses (%s)', (kind) => {
  let server: FlowServer;
  const clients: FromAddress[] = [];
  /** A fresh client bound to 127.0.0.<n>. */
  const from = (n: number) => {
    const c = new FromAddress(server.issuer, `127.0.0.${n}`);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    server = await startFlowServer(kind, SETTINGS);
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) c.close();
    await server?.stop();
  });

  it('sign-in: after 3 failures the account waits 2 s, then 4, then at most 8; the right password waits too; another account does not', async () => {
    const target = await server.addUser('student');
    const other = await server.addUser('student');
    const incorrect = 'The email or password is incorrect.';
    expectSignInPage(await from(2).signIn(target.email, 'guess-1'), 401, incorrect);
    expectSignInPage(await from(3).signIn(target.email, 'guess-2'), 401, incorrect);
    // The third failure starts the wait, whichever address sent it.
    expectSignInPage(await from(4).signIn(target.email.toUpperCase(), 'guess-3'), 429, wait(2), 2);
    // During the wait nothing is checked: a guess and the right password get the same answer.
    expectSignInPage(await from(5).signIn(target.email, 'guess-4'), 429, wait(2), 2);
    expectSignInPage(await from(6).signIn(target.email, target.password), 429, wait(2), 2);
    // Another account is not affected, from an address that took part.
    signedIn(await from(2).signIn(other.email, other.password));

    server.advance(2000);
    expectSignInPage(await from(3).signIn(target.email, 'guess-5'), 429, wait(4), 4);
    server.advance(4000);
    expectSignInPage(await from(4).signIn(target.email, 'guess-6'), 429, wait(8), 8);
    server.advance(8000);
    expectSignInPage(await from(5).signIn(target.email, 'guess-7'), 429, wait(8), 8);
    server.advance(7000);
    expectSignInPage(await from(6).signIn(target.email, target.password), 429, wait(1), 1);

    // The wait over, the owner signs in; that forgets the count: the next mistake is an ordinary one.
    server.advance(1000);
    signedIn(await from(7).signIn(target.email, target.password));
    expectSignInPage(await from(7).signIn(target.email, 'typo'), 401, incorrect);
  });

  it('sign-in: an email without an account gets the same answers, so they tell nothing', async () => {
    const nobody = `nobody-${Date.now()}@school.test`;
    expectSignInPage(await from(2).signIn(nobody, 'guess-1'), 401, 'The email or password is incorrect.');
    expectSignInPage(await from(3).signIn(nobody, 'guess-2'), 401, 'The email or password is incorrect.');
    expectSignInPage(await from(4).signIn(nobody, 'guess-3'), 429, wait(2), 2);
  });

  it('sign-in: a burst of guesses sent at once from eight addresses gets no more checks than the free failures', async () => {
    const target = await server.addUser('student');
    const answers = await Promise.all([2, 3, 4, 5, 6, 7, 8, 9].map((n) => from(n).signIn(target.email, `burst-${n}`)));
    const byStatus = answers.map((a) => a.status).sort();
    // Two ordinary failures, the third starts the wait, the other five meet it.
    expect(byStatus).toEqual([401, 401, 429, 429, 429, 429, 429, 429]);
    // The wait is 2 s from the third claim; a request that queued behind the others for over a
    // second (a loaded machine) is rightly told the 1 s that is left, never more than 2.
    for (const a of answers.filter((x) => x.status === 429)) {
      const left = Number(a.headers['retry-after']);
      expect([1, 2]).toContain(left);
      expectSignInPage(a, 429, wait(left), left);
    }
  });

  it('sign-in: eight correct sign-ins of one account sent at once all get in, none meets a wait', async () => {
    const target = await server.addUser('student');
    const answers = await Promise.all([2, 3, 4, 5, 6, 7, 8, 9].map((n) => from(n).signIn(target.email, target.password)));
    for (const a of answers) signedIn(a);
    // And the account has no failures left over: three wrong passwords are needed for a wait.
    expectSignInPage(await from(2).signIn(target.email, 'guess-1'), 401, 'The email or password is incorrect.');
    expectSignInPage(await from(3).signIn(target.email, 'guess-2'), 401, 'The email or password is incorrect.');
  });

  it('sign-in: correct and wrong passwords sent at once: no correct one is refused before any wait started', async () => {
    const target = await server.addUser('student');
    const answers = await Promise.all([2, 3, 4, 5, 6, 7].map((n) => from(n).signIn(target.email, n % 3 === 0 ? `guess-${n}` : target.password)));
    // Each right answer forgets the failures counted before it, so two wrong ones never reach the wait of three.
    expect(answers.map((a) => a.status).sort()).toEqual([303, 303, 303, 303, 401, 401]);
  });

  it('PATCH /api/v1/account current_password: the same count and waits, 429 too_many_requests with Retry-After', async () => {
    const { tokens } = await obtainTokens(server, { scope: 'account:write' });
    const patch = (n: number, current: string) =>
      from(n).request('/api/v1/account', {
        method: 'PATCH',
        headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ current_password: current, new_password: 'a brand new password' }),
      });
    const expectError = (res: Answer, status: number, error: string, description: string, retryAfter?: number) => {
      expect({ status: res.status, body: res.json }, res.text).toEqual({ status, body: { error, error_description: description } });
      expect(res.headers['retry-after']).toBe(retryAfter === undefined ? undefined : String(retryAfter));
    };
    expectError(await patch(2, 'guess-1'), 400, 'invalid_request', 'current_password is not correct');
    expectError(await patch(3, 'guess-2'), 400, 'invalid_request', 'current_password is not correct');
    expectError(await patch(4, 'guess-3'), 429, 'too_many_requests', wait(2), 2);
    expectError(await patch(5, server.user.password), 429, 'too_many_requests', wait(2), 2);
    // One count per account: the sign-in form waits as well, and another account does not.
    expectSignInPage(await from(6).signIn(server.user.email, server.user.password), 429, wait(2), 2);
    const other = await server.addUser('student');
    signedIn(await from(6).signIn(other.email, other.password));
    // The password is unchanged so far.
    const before = await server.deps.store.users.findByEmail(server.user.email);

    server.advance(2000);
    expectError(await patch(2, 'guess-4'), 429, 'too_many_requests', wait(4), 4);
    expect(await server.deps.store.users.findByEmail(server.user.email)).toEqual(before);
    server.advance(4000);
    const changed = await patch(3, server.user.password);
    expect(changed.status, changed.text).toBe(200);
    server.user.password = 'a brand new password';
    signedIn(await from(4).signIn(server.user.email, server.user.password));
  });
});

describe('the log of a wrong password', () => {
  it('names the account and the client address, never the password: at sign-in and for current_password', async () => {
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    const file = join(mkdtempSync(join(tmpdir(), 'lyceum-guess-')), 'lyceum.sqlite');
    const email = 'owner@guessing.test';
    const served = await spawnServe({ ...SETTINGS, LOG_LEVEL: 'info', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: file, OWNER_EMAIL: email });
    const guesses = ['Secret-Guess-7d1f', 'Secret-Current-9x2e'];
    const signInFrom = new FromAddress(issuer, '127.0.0.3');
    const apiFrom = new FromAddress(issuer, '127.0.0.4');
    try {
      expectSignInPage(await signInFrom.signIn(` ${email.toUpperCase()}`, guesses[0]!), 401, 'The email or password is incorrect.');
      // A token with account:write, through the real flow as the first-start owner (whose password `serve` wrote beside the database).
      const ownerPassword = /password: +(\S+)/.exec(readFileSync(join(dirname(file), 'owner-password.txt'), 'utf8'))![1]!;
      const client = await registerPublicClient(issuer);
      const { verifier, challenge } = pkcePair();
      const redirectUri = 'http://127.0.0.1:45678/callback';
      const callback = await new UserAgent(issuer).authorize(
        authorizeUrl(issuer, { response_type: 'code', client_id: client, redirect_uri: redirectUri, scope: 'account:write', code_challenge: challenge, code_challenge_method: 'S256', state: 's' }),
        { email, password: ownerPassword },
      );
      const token = await postForm(`${issuer}/api/oauth/token`, {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: redirectUri,
        client_id: client,
        code_verifier: verifier,
      });
      const patch = await apiFrom.request('/api/v1/account', {
        method: 'PATCH',
        headers: { authorization: `Bearer ${String(token.json.access_token)}`, 'content-type': 'application/json' },
        body: JSON.stringify({ current_password: guesses[1], new_password: 'a brand new password' }),
      });
      expect({ status: patch.status, body: patch.json }).toEqual({ status: 400, body: { error: 'invalid_request', error_description: 'current_password is not correct' } });
    } finally {
      signInFrom.close();
      apiFrom.close();
      expect(await served.stop()).toBe(0);
    }
    const lines = served
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const wrong = lines.filter((l) => l.msg === 'wrong password');
    expect(wrong).toHaveLength(2);
    expect(wrong[0]).toMatchObject({ level: 30, event: 'sign_in_failed', email, ip: '127.0.0.3', failures: 1 });
    expect(wrong[1]).toMatchObject({ level: 30, event: 'current_password_failed', email, ip: '127.0.0.4', failures: 1 });
    for (const guess of guesses) expect(served.stdout() + served.stderr()).not.toContain(guess);
  }, 90_000);
});
