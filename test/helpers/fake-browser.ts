/**
 * The "browser" a desktop MCP client opens for its authorization URL, for
 * tests of clients that open one themselves (mcp-remote through the `open`
 * package and xdg-open, which runs $BROWSER with the URL). It does what a
 * person would: signs in and approves on Lyceum's pages (the UserAgent of
 * flow.ts), then follows the redirect to the client's loopback listener.
 *
 * Run as `node --import tsx fake-browser.ts <url>` with FAKE_BROWSER_EMAIL,
 * FAKE_BROWSER_PASSWORD and FAKE_BROWSER_LOG (a file that gets one JSON line
 * per URL opened: the URL, the redirect and the listener's answer).
 */
import { appendFileSync } from 'node:fs';
import { UserAgent } from './user-agent.ts';

/** However the steps go, the process ends in this time: it is started detached, nobody else would stop it. */
const DEADLINE_MS = 20_000;

/**
 * Follows the redirect to the client's loopback listener. A person takes
 * seconds to sign in, by which time the listener the client started with the
 * browser is up; this script takes milliseconds, so it waits for the listener
 * a little while, as a browser showing "can't connect" and reloading would.
 */
async function deliver(redirect: URL): Promise<Response> {
  const until = Date.now() + DEADLINE_MS / 2;
  for (;;) {
    try {
      return await fetch(redirect, { redirect: 'manual', signal: AbortSignal.timeout(DEADLINE_MS / 2) });
    } catch (e) {
      if (Date.now() > until) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

async function main(): Promise<void> {
  const [url] = process.argv.slice(2);
  const { FAKE_BROWSER_EMAIL: email, FAKE_BROWSER_PASSWORD: password, FAKE_BROWSER_LOG: log } = process.env;
  if (!url || !email || !password || !log) throw new Error('usage: fake-browser <url> with FAKE_BROWSER_EMAIL, FAKE_BROWSER_PASSWORD and FAKE_BROWSER_LOG set');
  const record = (entry: Record<string, unknown>) => appendFileSync(log, `${JSON.stringify({ url, ...entry })}\n`);
  try {
    const redirect = await new UserAgent(new URL(url).origin).authorize(url, { email, password });
    const res = await deliver(redirect);
    record({ redirect: redirect.href, status: res.status });
  } catch (e) {
    record({ error: String(e) });
    process.exitCode = 1;
  }
}

setTimeout(() => process.exit(2), DEADLINE_MS).unref();
await main();
