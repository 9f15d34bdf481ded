/**
 * The wait a refused sign-in announces is what is left of it when the
 * refusal is made, not when the request came in: a check of the account that
 * queued behind a racing one (src/users/sign-in-throttle.ts) must not tell
 * the browser to wait longer than it has to.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { asPage, parseForms, UserAgent } from '../helpers/user-agent.ts';

const wait = (seconds: number) => `Too many failed sign-ins for this account. Try again in ${seconds} seconds.`;
const errorMessage = (html: string) => /<p class="error"[^>]*>([\s\S]*?)<\/p>/.exec(html)?.[1]?.trim();

describe.each(STORE_KINDS)('the wait a refused sign-in announces (%s)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, {
      SIGN_IN_FREE_FAILURES: '3',
      SIGN_IN_FIRST_DELAY_SECONDS: '10',
      SIGN_IN_MAX_DELAY_SECONDS: '60',
      SIGN_IN_FORGET_FAILURES_SECONDS: '600',
    });
  });
  afterAll(() => server?.close());

  /** One wrong password for the account: its status, Retry-After and message. */
  async function wrongPassword(email: string) {
    const agent = new UserAgent(server.issuer);
    const form = parseForms(asPage(await agent.navigate('/oauth/sign-in')).html).find((f) => f.action === '/oauth/sign-in')!;
    const page = asPage(await agent.submit(form, { email, password: 'wrong-password' }));
    return { status: page.status, retryAfter: page.headers.get('retry-after'), message: errorMessage(page.html) };
  }

  it('counts from after the check was held up behind another, never from when the request came in', async () => {
    const restart = server.freeze();
    const passwordFailures = server.deps.store.passwordFailures;
    const begin = passwordFailures.begin;
    try {
      const { email } = await server.addUser('student');
      expect(await wrongPassword(email)).toMatchObject({ status: 401, retryAfter: null });
      expect(await wrongPassword(email)).toMatchObject({ status: 401, retryAfter: null });
      // The third failure starts a 10 s wait; on a stopped clock the next refusal still says 10.
      expect(await wrongPassword(email)).toEqual({ status: 429, retryAfter: '10', message: wait(10) });
      expect(await wrongPassword(email)).toEqual({ status: 429, retryAfter: '10', message: wait(10) });

      // The check now waits 4.5 s for the account's row, as behind a racing check: 5.5 s are left.
      passwordFailures.begin = async (...args) => {
        const result = await begin.apply(passwordFailures, args);
        server.advance(4500);
        return result;
      };
      expect(await wrongPassword(email)).toEqual({ status: 429, retryAfter: '6', message: wait(6) });
    } finally {
      passwordFailures.begin = begin;
      restart();
    }
  });
});
