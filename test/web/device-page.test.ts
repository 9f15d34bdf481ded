/**
 * The device page (RFC 8628 §3.3) as a person, and an attacker, meet it:
 * sign-in first, the same-origin and CSRF checks of every form, the
 * remote-phishing warning, and a guessing script that gets nowhere.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectFormRefused } from '../helpers/browser-app.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { decide, openDevicePage, pollToken, registerDeviceClient, startDevice, submitCode, type DeviceClient } from '../helpers/device.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { asPage, parseForms, UserAgent, type Page } from '../helpers/user-agent.ts';

/** Well-formed codes that are almost surely nobody's (one in 20^8 would be). */
const wrongCode = (i: number) => `BBBB-${'BCDFGHJKLMNPQRSTVWXZ'[i % 20]!.repeat(4)}`;

describe.each(STORE_KINDS)('device page (%s)', (kind) => {
  let server: FlowServer;
  let client: DeviceClient;
  beforeAll(async () => {
    server = await startFlowServer(kind);
    client = await registerDeviceClient(server.issuer);
  });
  afterAll(() => server?.stop());
  // Each test starts with every wrong-code count forgotten (they live an hour after their last wait).
  beforeEach(() => server.advance(3 * 3600_000));

  it('asks for a sign-in first and comes back with the code filled in, under the phishing warning', async () => {
    const start = await startDevice(server.issuer, client);
    const agent = new UserAgent(server.issuer);
    const first = await agent.request(start.verification_uri_complete);
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe(`/oauth/sign-in?return_to=${encodeURIComponent(`/oauth/device?user_code=${start.user_code}`)}`);
    const page = await openDevicePage(agent, start.verification_uri_complete, server.user);
    expect(page.status).toBe(200);
    expect(page.html).toContain(`value="${start.user_code}"`);
    expect(page.html).toContain('Check that this is the code your device shows');
    expect(page.html).toContain('Only continue if you started this sign-in yourself, on a device you control');
    // Typed by hand, in lower case without the dash, it is the same code; the consent page names the device and warns again.
    const consent = await submitCode(agent, asPage(await agent.navigate('/oauth/device')), start.user_code.replace('-', '').toLowerCase());
    expect(consent.status).toBe(200);
    expect(consent.html).toContain('Remote agent');
    expect(consent.html).toContain('a device elsewhere');
    expect(consent.html).toContain(start.user_code);
    expect(consent.html).toContain('If someone sent you this code or link, choose Deny');
    expect(consent.headers.get('cache-control')).toBe('no-store');
  });

  it('a form sent after the session ended leads to sign-in and back to the code; a bad decision is a 400 page', async () => {
    const start = await startDevice(server.issuer, client);
    const agent = new UserAgent(server.issuer);
    const page = await openDevicePage(agent, start.verification_uri_complete, server.user);
    expect(page.headers.get('cache-control')).toBe('no-store');
    const consent = await submitCode(agent, page, start.user_code);
    const form = parseForms(consent.html).find((f) => f.action === '/oauth/device/decision')!;
    const post = (path: string, fields: Record<string, string>, who = agent) =>
      who.request(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });

    const bad = await post('/oauth/device/decision', { ...form.fields, decision: 'maybe' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await bad.text()).toContain('decision must be approve, approve_read_only or deny');

    server.advance(8 * 86_400_000);
    const back = `/oauth/sign-in?return_to=${encodeURIComponent(`/oauth/device?user_code=${start.user_code}`)}`;
    for (const path of ['/oauth/device', '/oauth/device/decision']) {
      const res = await post(path, { ...form.fields, decision: 'approve' });
      expect(res.status, path).toBe(303);
      expect(res.headers.get('location'), path).toBe(back);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    expect((await pollToken(server.issuer, client, start.device_code)).json.error).toBe('expired_token');
  });

  it('the consent page says the app registered itself, shows the code, and lists what a student cannot grant', async () => {
    const start = await startDevice(server.issuer, client, { scope: 'openid courses:read' });
    const student = await server.addUser('student');
    const agent = new UserAgent(server.issuer);
    const consent = await submitCode(agent, await openDevicePage(agent, start.verification_uri_complete, student), start.user_code);
    expect(consent.html).toContain(`<strong class="user-code">${start.user_code}</strong>`);
    expect(consent.html).toContain('This app registered itself; Lyceum has not reviewed it.');
    expect(consent.html).not.toContain('Registered by the school');
    const withheld = consent.html.split('<h2>Asked for, but not available to your role</h2>')[1]!.split('</ul>')[0]!;
    expect(withheld).toContain('<code>courses:read</code>');
    expect(withheld).not.toContain('<code>openid</code>');
  });

  it('five tabs deciding one code at once: one connects the device, the others are told it was used', async () => {
    const start = await startDevice(server.issuer, client);
    const agent = new UserAgent(server.issuer);
    const consent = await submitCode(agent, await openDevicePage(agent, start.verification_uri_complete, server.user), start.user_code);
    const pages = await Promise.all(Array.from({ length: 5 }, () => decide(agent, consent, 'approve')));
    expect(pages.filter((p) => p.html.includes('Device connected'))).toHaveLength(1);
    for (const p of pages.filter((x) => !x.html.includes('Device connected'))) {
      expect(p.status).toBe(400);
      expect(p.html).toContain('already used');
    }
  });

  it('refuses a form without its CSRF token, and one sent from another origin, with no decision taken', async () => {
    const start = await startDevice(server.issuer, client);
    const agent = new UserAgent(server.issuer);
    const consent = await submitCode(agent, await openDevicePage(agent, start.verification_uri_complete, server.user), start.user_code);
    const form = parseForms(consent.html).find((f) => f.action === '/oauth/device/decision')!;
    const post = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
      agent.request('/oauth/device/decision', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields).toString() });
    const { _csrf, ...withoutToken } = form.fields;
    expect(_csrf).toBeTruthy();
    await expectFormRefused(await post({ ...withoutToken, decision: 'approve' }), 'The form expired or was not sent from this site.');
    await expectFormRefused(await post({ ...form.fields, decision: 'approve' }, { 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:1' }), 'was not sent from this site’s own page');
    const poll = await pollToken(server.issuer, client, start.device_code);
    expect(poll.json.error).toBe('authorization_pending');
    // The real click still works.
    expect((await decide(agent, consent, 'approve')).html).toContain('Device connected');
  });

  it('explains a malformed code without counting it as a guess', async () => {
    const agent = new UserAgent(server.issuer);
    const page = await openDevicePage(agent, '/oauth/device', server.user);
    for (let i = 0; i < 8; i++) {
      const answer = await submitCode(agent, page, 'AAAA-0000');
      expect(answer.status).toBe(400);
      expect(answer.html).toContain('A code is 8 letters, like BCDF-GHJK; the dash is optional.');
    }
    const start = await startDevice(server.issuer, client);
    expect((await submitCode(agent, page, start.user_code)).status).toBe(200);
  });

  it('a guessing script: the fifth wrong code starts a wait, during which even a right code is refused; right codes never reset the count', async () => {
    const thaw = server.freezeClock();
    try {
      const guesser = await server.addUser('student');
      const agent = new UserAgent(server.issuer);
      const page = await openDevicePage(agent, '/oauth/device', guesser);
      const answers: Page[] = [];
      for (let i = 0; i < 4; i++) answers.push(await submitCode(agent, page, wrongCode(i)));
      // The attacker's own right code in between gives back only its own count.
      const own = await startDevice(server.issuer, client);
      expect((await submitCode(agent, page, own.user_code)).status).toBe(200);
      answers.push(await submitCode(agent, page, wrongCode(4)));
      expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400, 400]);
      expect(answers[0]!.html).toContain('not valid, or it has expired');
      const refused = await submitCode(agent, page, wrongCode(5));
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('30');
      expect(refused.html).toContain('Too many wrong codes. Try again in 30 seconds.');
      const victim = await startDevice(server.issuer, client);
      expect((await submitCode(agent, page, victim.user_code)).status).toBe(429);
      // After the wait one more guess is allowed, and the next wait is twice as long.
      server.advance(30_000);
      expect((await submitCode(agent, page, wrongCode(6))).status).toBe(400);
      const again = await submitCode(agent, page, wrongCode(7));
      expect(again.status).toBe(429);
      expect(again.headers.get('retry-after')).toBe('60');
      // The count lasts an hour after its last wait: half an hour later the next wrong code waits twice as long again.
      server.advance(60_000 + 30 * 60_000);
      expect((await submitCode(agent, page, wrongCode(8))).status).toBe(400);
      expect((await submitCode(agent, page, wrongCode(9))).headers.get('retry-after')).toBe('120');
    } finally {
      thaw();
    }
  });

  it('many accounts from one address: the address has its own count', async () => {
    const thaw = server.freezeClock();
    try {
      const statuses: number[] = [];
      for (let account = 0; account < 5; account++) {
        const user = await server.addUser('student');
        const agent = new UserAgent(server.issuer);
        const page = await openDevicePage(agent, '/oauth/device', user);
        for (let i = 0; i < 4; i++) statuses.push((await submitCode(agent, page, wrongCode(account * 4 + i))).status);
      }
      expect(statuses).toEqual(Array.from({ length: 20 }, () => 400));
      const fresh = await server.addUser('student');
      const agent = new UserAgent(server.issuer);
      const refused = await submitCode(agent, await openDevicePage(agent, '/oauth/device', fresh), wrongCode(0));
      expect(refused.status).toBe(429);
    } finally {
      thaw();
    }
  });

  it('fifty parallel guesses from one account are all counted: at most five are looked up', async () => {
    const thaw = server.freezeClock();
    try {
      const guesser = await server.addUser('student');
      const agent = new UserAgent(server.issuer);
      const page = await openDevicePage(agent, '/oauth/device', guesser);
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => submitCode(agent, page, wrongCode(i))));
      expect(answers.filter((a) => a.status === 400).length).toBeLessThanOrEqual(5);
      expect(answers.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(45);
    } finally {
      thaw();
    }
  });
});
