/**
 * Which passwords the sign-in form can never accept, whatever the account:
 * one longer than any account may have (1024 characters), and any at all
 * for an account whose stored hash argon2 cannot read (a hash another tool
 * wrote, say, or a damaged row).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { asPage, parseForms, UserAgent } from '../helpers/user-agent.ts';

/** A bcrypt hash, as an import from another system might have left it. */
const BCRYPT_HASH = '$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy';

describe.each(STORE_KINDS)('passwords the sign-in form never accepts (%s)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server?.close());

  /** Submits the sign-in form; expects the form again with 401 and no session. */
  async function expectRefused(email: string, password: string) {
    const agent = new UserAgent(server.issuer);
    const form = parseForms(asPage(await agent.navigate('/oauth/sign-in')).html).find((f) => f.action === '/oauth/sign-in')!;
    const res = await agent.request(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...form.fields, email, password }).toString(),
    });
    const html = await res.text();
    expect(res.status, html.slice(0, 400)).toBe(401);
    expect(html).toContain('The email or password is incorrect.');
    expect(res.headers.getSetCookie().some((line) => /_session=[^;]/.test(line))).toBe(false);
  }

  it('refuses a password longer than 1024 characters', async () => {
    const user = await server.addUser('student');
    await expectRefused(user.email, 'x'.repeat(1025));
    await expectRefused(user.email, user.password + 'y'.repeat(1025 - user.password.length));
  });

  it('refuses every password of an account whose stored hash argon2 cannot read', async () => {
    const user = await server.addUser('student');
    expect(await server.deps.store.users.setPassword(user.id, BCRYPT_HASH, server.deps.now())).toBe(true);
    await expectRefused(user.email, user.password);
    await expectRefused(user.email, BCRYPT_HASH);
  });
});
