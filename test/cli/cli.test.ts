/**
 * The real `lyceum` command, spawned as a user would run it: exit codes,
 * one-line errors on stderr, and the store it shares with a running server.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultText, SETTINGS } from '../../src/config/defaults.ts';
import { openStore } from '../../src/store/kysely/open.ts';
import { verifyPassword } from '../../src/users/passwords.ts';
import { sha256 } from '../../src/oauth/issued-tokens/secrets.ts';
import { databaseDump, obtainTokens, type FlowServer } from '../helpers/flow.ts';
import { registerPublicClient } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { databaseConfig, freshDatabaseUrl } from '../helpers/stores.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const KEYS_SECRET = 'cli-test-keys-secret-0123456789abcdefghij';
/** Each test spawns several processes that load the whole CLI; on a busy machine that takes a while. */
const CLI_TIMEOUT = 180_000;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * `node bin/lyceum.js ...args` with only the given settings (plus PATH/HOME):
 * nothing of the test runner's environment leaks into the command.
 */
function lyceum(args: string[], env: Record<string, string> = {}, timeout = 60_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/lyceum.js', ...args],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'silent', ...env },
        timeout,
        killSignal: 'SIGKILL',
      },
      (error, stdout, stderr) => {
        const e = error as (Error & { code?: unknown; signal?: NodeJS.Signals | null }) | null;
        resolve({
          code: e ? (typeof e.code === 'number' ? e.code : null) : 0,
          signal: e?.signal ?? null,
          stdout: String(stdout),
          stderr: String(stderr),
        });
      },
    );
  });
}

const STACK_FRAME = /^\s*at\s.+(:\d+:\d+\)?|\(native\))$/m;

/** Exit code non-zero, and stderr is exactly one line `lyceum: ...` with no stack trace. */
function expectOneLineError(r: Run, mentions?: RegExp): string {
  const summary = JSON.stringify(r);
  expect(r.signal, summary).toBeNull();
  expect(r.code, summary).not.toBe(0);
  expect(r.code, summary).not.toBeNull();
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines, summary).toHaveLength(1);
  const line = lines[0]!;
  expect(line, summary).toMatch(/^lyceum: \S/);
  expect(r.stderr, summary).not.toMatch(STACK_FRAME);
  expect(r.stderr, summary).not.toMatch(/\b[A-Z]\w*Error\b/);
  if (mentions) expect(line, summary).toMatch(mentions);
  return line;
}

function expectSuccess(r: Run): void {
  expect({ code: r.code, signal: r.signal, stderr: r.stderr }).toEqual({ code: 0, signal: null, stderr: '' });
}

describe('lyceum help', { timeout: CLI_TIMEOUT }, () => {
  it('lists every setting of src/config/defaults.ts with what it accepts and its default; no command prints the same', async () => {
    const [r, none] = await Promise.all([lyceum(['help']), lyceum([])]);
    expectSuccess(r);
    for (const s of SETTINGS) {
      const line = r.stdout.split('\n').find((l) => l.trimStart().startsWith(`${s.name} `));
      expect(line, `help has no line for ${s.name}`).toBeDefined();
      expect(line).toContain(`Accepted: ${s.parse.accepts}. Default: ${defaultText(s)}`);
    }
    // Two ranges, as documented:
    expect(r.stdout).toMatch(/^ {2}PORT +.*Accepted: 0 to 65535\. Default: 3000$/m);
    expect(r.stdout).toMatch(/^ {2}SIGN_IN_MAX_DELAY_SECONDS +.*Accepted: 1 to 86400\. Default: 900$/m);
    for (const command of ['serve', 'migrate', 'users add', 'users passwd', 'users list', 'clients add', 'clients list']) expect(r.stdout).toContain(command);
    expectSuccess(none);
    expect(none.stdout).toBe(r.stdout);
  });
});

describe('lyceum with bad input', { timeout: CLI_TIMEOUT }, () => {
  /** Each test on a file of its own, so that no two commands race to create one. */
  const fresh = async () => ({ DATABASE_URL: await freshDatabaseUrl('sqlite') });

  it.concurrent('an unknown command fails with one line naming it', async () => {
    expectOneLineError(await lyceum(['frobnicate'], await fresh()), /frobnicate/);
  });

  it.concurrent('an unknown users subcommand fails with one usage line', async () => {
    expectOneLineError(await lyceum(['users', 'explode'], await fresh()), /usage/i);
  });

  it.concurrent('an unknown clients subcommand fails with one usage line', async () => {
    expectOneLineError(await lyceum(['clients', 'explode'], await fresh()), /usage/i);
  });

  it.concurrent.each([
    ['serve', '--port', '4000'],
    ['migrate', 'now'],
  ])('%s with an argument fails with one line instead of ignoring it', async (...args) => {
    expectOneLineError(await lyceum(args, await fresh()), /takes no arguments.*environment/);
  });

  it.concurrent('an unknown option fails with one line', async () => {
    expectOneLineError(await lyceum(['users', 'add', '--email', 'x@y.test', '--password', 'longenough1', '--bogus'], await fresh()), /bogus/);
  });
});

describe('lyceum users, clients and migrate on SQLite', { timeout: CLI_TIMEOUT }, () => {
  let env: Record<string, string>;
  let url: string;

  beforeAll(async () => {
    url = await freshDatabaseUrl('sqlite');
    env = { DATABASE_URL: url };
  });

  it('migrate applies the migrations, and again is a no-op', async () => {
    const first = await lyceum(['migrate'], env);
    expectSuccess(first);
    expect(first.stdout).toMatch(/migrations applied/);
    expectSuccess(await lyceum(['migrate'], env));
  });

  it('users list on an empty store says so', async () => {
    const r = await lyceum(['users', 'list'], env);
    expectSuccess(r);
    expect(r.stdout.trim()).toBe('no users');
  });

  it('users add creates a user that users list shows', async () => {
    const r = await lyceum(['users', 'add', '--email', 'a@b.test', '--password', 'longenough1', '--name', 'A', '--role', 'admin'], env);
    expectSuccess(r);
    expect(r.stdout).toMatch(/admin/);
    expect(r.stdout).toMatch(/a@b\.test/);
    const list = await lyceum(['users', 'list'], env);
    expectSuccess(list);
    const line = list.stdout.split('\n').find((l) => l.includes('a@b.test'));
    expect(line).toBeDefined();
    expect(line).toMatch(/\badmin\b/);
    expect(line).toMatch(/\bA$/);
  });

  it('users add with an email already taken (any case) fails with one line', async () => {
    expectOneLineError(await lyceum(['users', 'add', '--email', 'a@b.test', '--password', 'longenough1'], env), /a@b\.test/i);
    expectOneLineError(await lyceum(['users', 'add', '--email', 'A@B.TEST', '--password', 'longenough1'], env), /a@b\.test/i);
    const list = await lyceum(['users', 'list'], env);
    expect(list.stdout.split('\n').filter((l) => /a@b\.test/i.test(l))).toHaveLength(1);
  });

  it.concurrent.each([
    ['a bad role', ['--email', 'role@b.test', '--password', 'longenough1', '--role', 'emperor'], /role/],
    ['a short password', ['--email', 'short@b.test', '--password', 'short'], /password/],
    ['a bad email', ['--email', 'not-an-email', '--password', 'longenough1'], /email/],
    ['no --email', ['--password', 'longenough1'], /--email/],
    ['no --password', ['--email', 'nopw@b.test'], /--password/],
  ])('users add with %s fails with one clear line and adds nobody', async (_what, flags, mentions) => {
    expectOneLineError(await lyceum(['users', 'add', ...flags], env), mentions);
    const store = openStore(databaseConfig(url));
    try {
      expect((await store.users.list()).map((u) => u.email).filter((e) => /role@b|short@b|not-an-email|nopw@b/.test(e))).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('users passwd changes the password', async () => {
    const r = await lyceum(['users', 'passwd', '--email', 'A@b.test', '--password', 'brand-new-password'], env);
    expectSuccess(r);
    expect(r.stdout).toMatch(/a@b\.test/);
    const store = openStore(databaseConfig(url));
    try {
      const user = await store.users.findByEmail('a@b.test');
      expect(await verifyPassword(user!.passwordHash, 'brand-new-password')).toBe(true);
      expect(await verifyPassword(user!.passwordHash, 'longenough1')).toBe(false);
      const [logged] = (await store.activity.list({ userId: user!.id, event: 'password.changed', limit: 5 })).entries;
      expect(logged).toMatchObject({ via: 'cli', operation: 'users passwd', clientId: null, recordType: 'account', recordId: user!.id, fields: [] });
    } finally {
      await store.close();
    }
  });

  it('users passwd for an unknown email, with a short password or without flags fails with one line', async () => {
    expectOneLineError(await lyceum(['users', 'passwd', '--email', 'ghost@b.test', '--password', 'longenough1'], env), /ghost@b\.test/);
    expectOneLineError(await lyceum(['users', 'passwd', '--email', 'a@b.test', '--password', 'short'], env), /password/);
    expectOneLineError(await lyceum(['users', 'passwd'], env), /--email/);
  });

  describe('clients, while a server runs on the same SQLite file', { timeout: CLI_TIMEOUT }, () => {
    let server: TestServer;

    beforeAll(async () => {
      const r = await lyceum(['clients', 'list'], env);
      expectSuccess(r);
      expect(r.stdout.trim()).toBe('no clients');
      server = await startTestServer('sqlite', { DATABASE_URL: url });
    }, CLI_TIMEOUT);

    afterAll(async () => {
      await server?.close();
    });

    it('clients list / show / delete see and change what the server registered', async () => {
      const clientId = await registerPublicClient(server.issuer, { client_name: 'Server-side CLI' });

      const list = await lyceum(['clients', 'list'], env);
      expectSuccess(list);
      const line = list.stdout.split('\n').find((l) => l.startsWith(clientId));
      expect(line, list.stdout).toBeDefined();
      expect(line).toMatch(/\bnone\b/);
      expect(line).toMatch(/Server-side CLI/);

      const show = await lyceum(['clients', 'show', clientId], env);
      expectSuccess(show);
      const shown = JSON.parse(show.stdout) as Record<string, unknown>;
      expect(shown).toMatchObject({
        client_id: clientId,
        client_name: 'Server-side CLI',
        redirect_uris: ['http://127.0.0.1/callback'],
        token_endpoint_auth_method: 'none',
      });

      const del = await lyceum(['clients', 'delete', clientId], env);
      expectSuccess(del);
      expect(del.stdout).toContain(clientId);

      // The running server sees the deletion at once.
      const token = await fetch(`${server.issuer}/api/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'lyc_rt_x', client_id: clientId }).toString(),
      });
      expect(token.status).toBe(401);
      expect(await token.json()).toMatchObject({ error: 'invalid_client' });

      const after = await lyceum(['clients', 'list'], env);
      expectSuccess(after);
      expect(after.stdout).not.toContain(clientId);
      // ...and the server keeps registering clients on the file the CLI wrote to.
      expect(await registerPublicClient(server.issuer)).toMatch(/^lyc_client_/);
    });

    it('clients list / show tell when each client last obtained a token, or never', async () => {
      const idle = await registerPublicClient(server.issuer, { client_name: 'Never used' });
      // The real flow against the running server: sign in, approve, exchange the code.
      const flowServer = { ...server, user: await server.addUser('owner'), tokenEndpoint: `${server.issuer}/api/oauth/token` } as unknown as FlowServer;
      const before = Date.now();
      const { flow } = await obtainTokens(flowServer, { scope: 'courses:read' });
      const used = flow.clientId;

      const list = await lyceum(['clients', 'list'], env);
      expectSuccess(list);
      const lines = list.stdout.split('\n');
      expect(lines[0]).toMatch(/^CLIENT_ID +AUTH_METHOD +REGISTERED +LAST_USED +BY +NAME$/);
      expect(lines.find((l) => l.startsWith(idle))).toMatch(/Z {2}never +open +Never used$/);
      const usedLine = lines.find((l) => l.startsWith(used));
      const times = usedLine?.match(/\d{4}-\d\d-\d\dT[\d:.]+Z/g) ?? [];
      expect(times, list.stdout).toHaveLength(2);
      expect(Date.parse(times[1]!)).toBeGreaterThanOrEqual(before - 1000);

      const shownUsed = JSON.parse((await lyceum(['clients', 'show', used], env)).stdout) as Record<string, unknown>;
      expect(shownUsed.last_used_at).toBe(times[1]);
      const shownIdle = JSON.parse((await lyceum(['clients', 'show', idle], env)).stdout) as Record<string, unknown>;
      expect(shownIdle.last_used_at).toBeNull();
    });

    it('clients show / delete of an unknown id, or without an id, fail with one line', async () => {
      expectOneLineError(await lyceum(['clients', 'show', 'lyc_client_nope'], env), /lyc_client_nope/);
      expectOneLineError(await lyceum(['clients', 'delete', 'lyc_client_nope'], env), /lyc_client_nope/);
      expectOneLineError(await lyceum(['clients', 'show'], env), /usage/i);
      expectOneLineError(await lyceum(['clients', 'delete'], env), /usage/i);
    });

    it('users add through the CLI while the server runs is seen by the server', async () => {
      expectSuccess(await lyceum(['users', 'add', '--email', 'live@b.test', '--password', 'longenough1'], env));
      expect(await server.deps.store.users.findByEmail('live@b.test')).toMatchObject({ email: 'live@b.test', role: 'student' });
    });
  });

  describe('clients add: apps the school registers', { timeout: CLI_TIMEOUT }, () => {
    const CURSOR = 'cursor://anysphere.cursor-mcp/oauth/callback';
    const CLAUDE = 'https://claude.ai/api/mcp/auth_callback';
    /** The value of a `name: value` line of the output. */
    const field = (out: string, name: string) => new RegExp(`^${name}: (.+)$`, 'm').exec(out)?.[1];

    it('adds a public client with several redirect URIs that list and show describe as the school’s, and delete removes', async () => {
      const r = await lyceum(['clients', 'add', '--name', 'Cursor', '--redirect-uri', CURSOR, '--redirect-uri', CLAUDE, '--redirect-uri', 'http://127.0.0.1/callback'], env);
      expectSuccess(r);
      const clientId = field(r.stdout, 'client_id')!;
      expect(clientId).toMatch(/^lyc_client_/);
      expect(r.stdout).not.toMatch(/secret:/);

      const list = await lyceum(['clients', 'list'], env);
      expectSuccess(list);
      expect(list.stdout.split('\n').find((l) => l.startsWith(clientId))).toMatch(/^\S+ {2}none +\S+Z {2}never +operator +Cursor$/);

      const show = await lyceum(['clients', 'show', clientId], env);
      expectSuccess(show);
      expect(JSON.parse(show.stdout)).toEqual({
        client_id: clientId,
        registration: 'operator',
        created_at: expect.stringMatching(/Z$/),
        last_used_at: null,
        client_name: 'Cursor',
        redirect_uris: [CURSOR, CLAUDE, 'http://127.0.0.1/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        application_type: 'native',
      });

      expectSuccess(await lyceum(['clients', 'delete', clientId], env));
      expect((await lyceum(['clients', 'list'], env)).stdout).not.toContain(clientId);
    });

    it('--confidential prints the secret once; show never shows it and the store keeps only its hash', async () => {
      const r = await lyceum(['clients', 'add', '--name', 'Claude', '--redirect-uri', CLAUDE, '--confidential', '--scope', 'openid courses:read'], env);
      expectSuccess(r);
      const clientId = field(r.stdout, 'client_id')!;
      const secret = field(r.stdout, 'client_secret')!;
      expect(secret).toMatch(/^lyc_cs_[A-Za-z0-9_-]{43}$/);
      expect(r.stdout.split(secret)).toHaveLength(2);
      expect(field(r.stdout, 'scope')).toBe('openid courses:read');

      const show = await lyceum(['clients', 'show', clientId], env);
      expectSuccess(show);
      expect(show.stdout).not.toContain(secret);
      expect(show.stdout).not.toContain(sha256(secret));
      expect(Object.keys(JSON.parse(show.stdout))).not.toContain('client_secret');
      expect(JSON.parse(show.stdout)).toMatchObject({ token_endpoint_auth_method: 'client_secret_post', application_type: 'web', scope: 'openid courses:read' });

      const dump = await databaseDump(url);
      expect(dump).not.toContain(secret);
      expect(dump).toContain(sha256(secret));
    });

    it.concurrent.each([
      ['javascript:', 'javascript:alert(1)', /javascript: scheme/],
      ['data:', 'data:text/html,hi', /data: scheme/],
      ['file:', 'file:///etc/passwd', /file: scheme/],
      ['plain http off loopback', 'http://school.example/callback', /not loopback.*use https/],
      ['a fragment', `${CLAUDE}#x`, /fragment/],
      ['https without a host', 'https:///callback', /no host/],
      ['a relative URI', '/callback', /not an absolute URI/],
      ['a scheme and nothing else', 'cursor:', /nothing after the scheme/],
    ])('refuses a redirect URI with %s: exit code 2, one line naming it, nothing added', async (_what, uri, reason) => {
      const r = await lyceum(['clients', 'add', '--name', 'Refused', '--redirect-uri', CURSOR, '--redirect-uri', uri], env);
      expect(r.code).toBe(2);
      expect(expectOneLineError(r, reason)).toContain(`--redirect-uri: ${uri}`);
      expect(r.stdout).toBe('');
    });

    it.concurrent.each([
      ['no --name', ['--redirect-uri', CURSOR], /--name is required/],
      ['no --redirect-uri', ['--name', 'X'], /at least one --redirect-uri/],
      ['an unknown scope', ['--name', 'X', '--redirect-uri', CURSOR, '--scope', 'courses:read admin'], /unknown scope admin/],
      ['a stray argument', ['--name', 'X', '--redirect-uri', CURSOR, 'extra'], /unexpected argument "extra"/],
    ])('refuses %s with exit code 2 and one line', async (_what, flags, mentions) => {
      const r = await lyceum(['clients', 'add', ...flags], env);
      expect(r.code).toBe(2);
      expectOneLineError(r, mentions);
    });

    it('a refused add leaves no client behind', async () => {
      const list = await lyceum(['clients', 'list'], env);
      expect(list.stdout).not.toMatch(/Refused|\bX$/m);
    });
  });

  it('four migrate commands at once on a fresh file all succeed', async () => {
    const fresh = { DATABASE_URL: await freshDatabaseUrl('sqlite') };
    const runs = await Promise.all([1, 2, 3, 4].map(() => lyceum(['migrate'], fresh)));
    for (const r of runs) expectSuccess(r);
    expectSuccess(await lyceum(['users', 'list'], fresh));
  });
});

describe('lyceum serve with a bad setting', { timeout: CLI_TIMEOUT }, () => {
  it.concurrent.each([
    ['PORT', 'abc'],
    ['PUBLIC_URL', 'ftp://x'],
    ['PUBLIC_URL', 'https://lyceum.example/'],
    ['DATABASE_URL', 'mysql://x'],
    ['ACCESS_TOKEN_TTL_SECONDS', '5'],
    ['LOG_LEVEL', 'loud'],
    ['TRUST_PROXY', 'bad'],
  ])('%s=%s exits non-zero with one line naming the variable', async (name, value) => {
    // Valid settings the bad one is added to: should it slip through, serve starts on a free port and a throwaway file.
    const base = { PORT: '0', DATABASE_URL: await freshDatabaseUrl('sqlite') };
    const r = await lyceum(['serve'], { ...base, [name]: value }, 40_000);
    expectOneLineError(r, new RegExp(`^lyceum: ${name}\\b`));
  });
});

describe.runIf(!!process.env.TEST_DATABASE_URL)('lyceum users on PostgreSQL', { timeout: CLI_TIMEOUT }, () => {
  let env: Record<string, string>;
  let url: string;

  beforeAll(async () => {
    url = await freshDatabaseUrl('postgres');
    env = { DATABASE_URL: url, KEYS_SECRET };
  });

  it('migrate, users add / list / duplicate / passwd', async () => {
    expectSuccess(await lyceum(['migrate'], env));
    expectSuccess(await lyceum(['users', 'add', '--email', 'a@b.test', '--password', 'longenough1', '--name', 'A', '--role', 'admin'], env));
    const list = await lyceum(['users', 'list'], env);
    expectSuccess(list);
    expect(list.stdout).toMatch(/admin\s+a@b\.test\s+A/);
    expectOneLineError(await lyceum(['users', 'add', '--email', 'A@B.test', '--password', 'longenough1'], env), /a@b\.test/i);
    expectOneLineError(await lyceum(['users', 'add', '--email', 'c@b.test', '--password', 'longenough1', '--role', 'emperor'], env), /role/);
    expectSuccess(await lyceum(['users', 'passwd', '--email', 'a@b.test', '--password', 'brand-new-password'], env));
    const store = openStore(databaseConfig(url));
    try {
      const user = await store.users.findByEmail('a@b.test');
      expect(await verifyPassword(user!.passwordHash, 'brand-new-password')).toBe(true);
    } finally {
      await store.close();
    }
    const clients = await lyceum(['clients', 'list'], env);
    expectSuccess(clients);
    expect(clients.stdout.trim()).toBe('no clients');
  });

  it('clients add stores a school client that show reads back, secret hashed', async () => {
    const r = await lyceum(['clients', 'add', '--name', 'Claude', '--redirect-uri', 'https://claude.ai/api/mcp/auth_callback', '--confidential'], env);
    expectSuccess(r);
    const clientId = /^client_id: (\S+)$/m.exec(r.stdout)![1]!;
    const secret = /^client_secret: (\S+)$/m.exec(r.stdout)![1]!;
    const show = await lyceum(['clients', 'show', clientId], env);
    expectSuccess(show);
    expect(JSON.parse(show.stdout)).toMatchObject({ client_id: clientId, registration: 'operator', redirect_uris: ['https://claude.ai/api/mcp/auth_callback'] });
    const dump = await databaseDump(url);
    expect(dump).not.toContain(secret);
    expect(dump).toContain(sha256(secret));
  });

  it('two migrate commands at once on a fresh schema both succeed', async () => {
    const fresh = { DATABASE_URL: await freshDatabaseUrl('postgres'), KEYS_SECRET };
    const runs = await Promise.all([lyceum(['migrate'], fresh), lyceum(['migrate'], fresh)]);
    for (const r of runs) expectSuccess(r);
  });
});
