/**
 * `lyceum serve` on a fresh data directory, as a deployment starts it (stdout
 * piped into a log collector, not a terminal): the data directory and every
 * file it creates there are owner-only, and the first-start owner password
 * goes into an owner-only file, never into the log stream.
 */
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/server.ts';
import { spawnServe, type ServeProcess } from '../helpers/spawn-serve.ts';
import { parseForms, UserAgent } from '../helpers/user-agent.ts';

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe('first start on a fresh data directory, stdout not a terminal', () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'lyceum-secrets-')), 'data');
  const dbFile = join(dataDir, 'lyceum.sqlite');
  let server: ServeProcess;
  let origin: string;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    server = await spawnServe({ LOG_LEVEL: 'info', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: dbFile });
  }, 60_000);
  afterAll(() => server?.stop());

  it('creates the data directory 0700 and the database, its -wal and -shm and keys.secret 0600', () => {
    expect(mode(dataDir)).toBe('700');
    for (const file of ['lyceum.sqlite', 'lyceum.sqlite-wal', 'lyceum.sqlite-shm', 'keys.secret']) {
      expect(existsSync(join(dataDir, file)), file).toBe(true);
      expect(mode(join(dataDir, file)), file).toBe('600');
    }
  });

  it('writes the owner password to owner-password.txt (0600), names only the file in its output, and the password signs in', async () => {
    const file = join(dataDir, 'owner-password.txt');
    expect(mode(file)).toBe('600');
    const text = readFileSync(file, 'utf8');
    const email = /email: +(\S+)/.exec(text)?.[1];
    const password = /password: +(\S+)/.exec(text)?.[1];
    expect(email).toBe('owner@lyceum.test');
    expect(password).toMatch(/^[A-Za-z0-9_-]{16}$/);

    const agent = new UserAgent(origin);
    const page = await agent.navigate('/oauth/sign-in?return_to=%2Faccount%2Fapps');
    if (!('html' in page)) throw new Error('expected the sign-in page');
    const form = parseForms(page.html).find((f) => f.action === '/oauth/sign-in')!;
    const after = await agent.submit(form, { email: email!, password: password! });
    if (!('html' in after)) throw new Error('expected the apps page');
    expect(after.status).toBe(200);
    expect(after.html).toContain('No app has access to your account');

    // The whole log stream so far, the sign-in's request lines included.
    const output = server.stdout() + server.stderr();
    expect(output).toContain(`the one-time password is in ${file}`);
    expect(output).not.toContain(password);
  });
});

describe('first start at a terminal', () => {
  it('prints the owner password to the terminal and writes no file', async () => {
    const { announceOwner, ownerPasswordFile } = await import('../../src/cli/owner-password.ts');
    const database = { kind: 'sqlite' as const, file: join(mkdtempSync(join(tmpdir(), 'lyceum-tty-')), 'lyceum.sqlite') };
    let printed = '';
    const terminal = { isTTY: true, write: (s: string) => ((printed += s), true) } as unknown as NodeJS.WriteStream;
    announceOwner('owner@school.test', 'the-one-time-password', database, terminal);
    expect(printed).toContain('  email:    owner@school.test\n  password: the-one-time-password\n');
    expect(existsSync(ownerPasswordFile(database))).toBe(false);
  });
});
