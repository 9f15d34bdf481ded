/**
 * The store contracts of src/store/types.ts, run against every store kind:
 * SQLite always, PostgreSQL when TEST_DATABASE_URL is set.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/kysely/open.ts';
import {
  DuplicateError,
  type AuthorizationCode,
  type Client,
  type Grant,
  type Session,
  type SigningKey,
  type Store,
  type Token,
  type User,
} from '../../src/store/types.ts';
import { freshPostgresDatabase } from '../helpers/postgres-database.ts';
import { databaseConfig, freshDatabaseUrl, STORE_KINDS } from '../helpers/stores.ts';

/** Epoch-ms times well above 2^32, so a bigint column that comes back as a string or is truncated shows. */
const T0 = 1_750_000_000_000;
/** The time base of the purge tests: older than every other row of the suite. */
const PAST = 1_000_000_000_000;

const id = (prefix = '') => `${prefix}${randomUUID()}`;
const hash = () => randomBytes(32).toString('base64url');

function newUser(over: Partial<User> = {}): User {
  const u = id('u-');
  return {
    id: u,
    email: `${u}@school.test`,
    name: 'A user',
    role: 'student',
    passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}

function newClient(over: Partial<Client> = {}): Client {
  return {
    id: id('lyc_client_'),
    secretHash: null,
    metadata: {
      client_name: 'Contract CLI',
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    },
    createdAt: T0,
    lastUsedAt: null,
    registration: 'open',
    ...over,
  };
}

function newCode(clientId: string, userId: string, over: Partial<AuthorizationCode> = {}): AuthorizationCode {
  return {
    hash: hash(),
    clientId,
    userId,
    redirectUri: 'http://127.0.0.1:8765/callback',
    scope: 'openid courses:read',
    resource: null,
    nonce: 'n-0S6_WzA2Mj',
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    authTime: T0 - 5_000,
    familyId: randomUUID(),
    expiresAt: T0 + 60_000,
    createdAt: T0,
    ...over,
  };
}

function newToken(clientId: string, userId: string, over: Partial<Token> = {}): Token {
  const kind = over.kind ?? 'refresh';
  return {
    hash: hash(),
    kind,
    clientId,
    userId,
    scope: 'courses:read',
    resource: null,
    familyId: randomUUID(),
    authTime: T0 - 5_000,
    expiresAt: T0 + 3_600_000,
    createdAt: T0,
    revokedAt: null,
    rotatedAt: null,
    salt: kind === 'refresh' ? randomBytes(16).toString('base64url') : null,
    ...over,
  };
}

/** Every time field of a row must come back as a JS number on every store. */
function expectNumericTimes(row: object, fields: string[]): void {
  for (const f of fields) {
    const v = (row as Record<string, unknown>)[f];
    if (v === null) continue;
    expect(typeof v, `${f} should be a number, got ${typeof v} (${String(v)})`).toBe('number');
  }
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OPEN_TS = fileURLToPath(new URL('../../src/store/kysely/open.ts', import.meta.url));

/**
 * Each process opens the store, makes one query (so the connection is up),
 * says "ready", waits for "go" on stdin, then runs migrate(): several
 * instances starting at the same moment.
 */
const MIGRATE_SCRIPT = `
const url = process.argv[process.argv.length - 1];
const { openStore } = await import(${JSON.stringify(OPEN_TS)});
const store = openStore(url.startsWith('postgres') ? { kind: 'postgres', url } : { kind: 'sqlite', file: url });
await store.users.findById('warm-up').catch(() => undefined);
process.stdout.write('ready\\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
try {
  await store.migrate();
  process.stdout.write('ok');
} catch (err) {
  process.stdout.write(String(err instanceof Error ? err.message : err));
} finally {
  await store.close();
  process.stdin.destroy();
}
`;

async function migrateFromProcesses(url: string, count: number): Promise<string[]> {
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', MIGRATE_SCRIPT, '--', url], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] }),
  );
  const outputs = children.map((child) => {
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += String(d)));
    child.stderr.on('data', (d: Buffer) => (err += String(d)));
    const ready = new Promise<void>((resolve, reject) => {
      const check = () => (out.startsWith('ready\n') ? resolve() : undefined);
      child.stdout.on('data', check);
      child.once('exit', () => reject(new Error(`exited before it was ready: ${err.split('\n')[0]}`)));
    });
    const done = new Promise<string>((resolve) => child.once('close', () => resolve(out.replace(/^ready\n/, '').trim() || `exited: ${err.split('\n')[0]}`)));
    return { child, ready, done };
  });
  try {
    await Promise.all(outputs.map((o) => o.ready));
  } catch (err) {
    for (const o of outputs) o.child.kill();
    throw err;
  }
  // Every process is connected and waiting: release them together.
  for (const o of outputs) o.child.stdin.write('go\n');
  return Promise.all(outputs.map((o) => o.done));
}

describe.each(STORE_KINDS)('store contract (%s)', (kind) => {
  let store: Store;
  let url: string;
  /** A user and a client most tests hang their rows on (foreign keys). */
  let user: User;
  let client: Client;

  beforeAll(async () => {
    url = await freshDatabaseUrl(kind);
    store = openStore(databaseConfig(url));
    await store.migrate();
    user = newUser();
    client = newClient();
    await store.users.create(user);
    await store.clients.create(client);
  });

  afterAll(async () => {
    await store?.close();
  });

  it('reports its kind', () => {
    expect(store.kind).toBe(kind);
  });

  describe('migrations', () => {
    it('migrate() a second time is a no-op that keeps the data', async () => {
      await store.migrate();
      await store.migrate();
      expect(await store.users.findById(user.id)).toMatchObject({ id: user.id });
      expect(await store.clients.find(client.id)).toMatchObject({ id: client.id });
    });

    it('the purge finds revoked tokens through the partial index tokens_revoked_at, not a table scan', async () => {
      const query = 'SELECT hash FROM tokens WHERE revoked_at < 1000 LIMIT 50';
      let plan: string;
      if (kind === 'sqlite') {
        const db = new SQLite(url, { readonly: true });
        plan = db.prepare(`EXPLAIN QUERY PLAN ${query}`).all().map((r) => (r as { detail: string }).detail).join('\n');
        db.close();
      } else {
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        // A nearly empty table would be scanned whatever its indexes: ask for the plan the index allows.
        await c.query('SET enable_seqscan = off');
        plan = (await c.query(`EXPLAIN ${query}`)).rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
        await c.end();
      }
      expect(plan).toMatch(/tokens_revoked_at/);
    });

    it('six processes migrating one fresh database at the same moment all succeed', async () => {
      const other = await freshDatabaseUrl(kind);
      expect(await migrateFromProcesses(other, 6)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
      const s = openStore(databaseConfig(other));
      try {
        await s.migrate();
        const u = newUser();
        await s.users.create(u);
        expect(await s.users.findById(u.id)).toEqual(u);
      } finally {
        await s.close();
      }
    }, 60_000);

    // Several pools in one process are real concurrent instances on PostgreSQL. (SQLite's
    // synchronous driver cannot wait for a second connection of its own process.)
    it.runIf(kind === 'postgres')('three stores in one process migrating at once, then again, all succeed', async () => {
      const other = await freshDatabaseUrl(kind);
      const stores = [0, 1, 2].map(() => openStore(databaseConfig(other)));
      try {
        const first = await Promise.allSettled(stores.map((st) => st.migrate()));
        expect(first.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))).toEqual(['ok', 'ok', 'ok']);
        const second = await Promise.allSettled(stores.map((st) => st.migrate()));
        expect(second.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))).toEqual(['ok', 'ok', 'ok']);
      } finally {
        for (const st of stores) await st.close();
      }
    });
  });

  describe('users', () => {
    it('create → findById and findByEmail return the user with numeric times', async () => {
      const u = newUser({ role: 'lecturer', name: 'Ada Lovelace', createdAt: T0 + 1, updatedAt: T0 + 2 });
      await store.users.create(u);
      const byId = await store.users.findById(u.id);
      expect(byId).toEqual(u);
      expectNumericTimes(byId!, ['createdAt', 'updatedAt']);
      expect(await store.users.findByEmail(u.email)).toEqual(u);
    });

    it('findByEmail is case-insensitive, whatever case the email was created with', async () => {
      const local = id('Mixed.Case-');
      const u = newUser({ email: `${local}@Example.TEST` });
      await store.users.create(u);
      for (const probe of [`${local}@Example.TEST`, `${local}@example.test`.toLowerCase(), `${local}@EXAMPLE.TEST`.toUpperCase()]) {
        const found = await store.users.findByEmail(probe);
        expect(found?.id, probe).toBe(u.id);
      }
    });

    it('findByEmail / findById of unknown values give undefined', async () => {
      expect(await store.users.findByEmail('nobody-here@school.test')).toBeUndefined();
      expect(await store.users.findById(id())).toBeUndefined();
    });

    it('create throws DuplicateError for an email already taken, in any case', async () => {
      const u = newUser({ email: `${id('dup-')}@school.test` });
      await store.users.create(u);
      await expect(store.users.create(newUser({ email: u.email }))).rejects.toBeInstanceOf(DuplicateError);
      await expect(store.users.create(newUser({ email: u.email.toUpperCase() }))).rejects.toBeInstanceOf(DuplicateError);
      const mixed = u.email.replace(/^./, (c) => c.toUpperCase()).replace('@school', '@SCHOOL');
      await expect(store.users.create(newUser({ email: mixed }))).rejects.toBeInstanceOf(DuplicateError);
      // the first user is untouched
      expect(await store.users.findById(u.id)).toEqual(u);
    });

    it('DuplicateError also when the email is created with upper case first and lower case second', async () => {
      const local = id('UPPER-');
      await store.users.create(newUser({ email: `${local}@SCHOOL.TEST` }));
      await expect(store.users.create(newUser({ email: `${local}@school.test`.toLowerCase() }))).rejects.toBeInstanceOf(DuplicateError);
    });

    it('of 10 concurrent creates with one email exactly one succeeds; the others get DuplicateError', async () => {
      const email = `${id('race-')}@school.test`;
      const results = await Promise.allSettled(Array.from({ length: 10 }, () => store.users.create(newUser({ email }))));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(DuplicateError);
    });

    it('list() returns users oldest first (created_at, then id)', async () => {
      const base = T0 + 10_000_000;
      const third = newUser({ createdAt: base + 2 });
      const first = newUser({ createdAt: base });
      const second = newUser({ createdAt: base + 1 });
      for (const u of [third, first, second]) await store.users.create(u);
      const all = await store.users.list();
      const mine = all.filter((u) => [first.id, second.id, third.id].includes(u.id)).map((u) => u.id);
      expect(mine).toEqual([first.id, second.id, third.id]);
      const created = all.map((u) => u.createdAt);
      expect(created).toEqual([...created].sort((a, b) => a - b));
      for (const u of all) expectNumericTimes(u, ['createdAt', 'updatedAt']);
    });

    it('any() is false on a new database and true once a user exists', async () => {
      const fresh = openStore(databaseConfig(await freshDatabaseUrl(kind)));
      try {
        await fresh.migrate();
        expect(await fresh.users.any()).toBe(false);
        await fresh.users.create(newUser());
        expect(await fresh.users.any()).toBe(true);
      } finally {
        await fresh.close();
      }
      expect(await store.users.any()).toBe(true);
    });

    it('setPassword replaces the hash and updatedAt and returns true; false for an unknown id', async () => {
      const u = newUser();
      await store.users.create(u);
      expect(await store.users.setPassword(u.id, 'new-hash', T0 + 99)).toBe(true);
      const after = await store.users.findById(u.id);
      expect(after).toMatchObject({ passwordHash: 'new-hash', updatedAt: T0 + 99, createdAt: u.createdAt, email: u.email });
      expectNumericTimes(after!, ['createdAt', 'updatedAt']);
      expect(await store.users.setPassword(id('missing-'), 'x', T0)).toBe(false);
    });
  });

  describe('users: setName', () => {
    it('setName replaces the name and updatedAt and returns true; false for an unknown id', async () => {
      const u = newUser();
      await store.users.create(u);
      expect(await store.users.setName(u.id, 'Grace Hopper', T0 + 77)).toBe(true);
      expect(await store.users.findById(u.id)).toEqual({ ...u, name: 'Grace Hopper', updatedAt: T0 + 77 });
      expect(await store.users.setName(id('missing-'), 'x', T0)).toBe(false);
    });
  });

  describe('clients', () => {
    it('create → find round-trips metadata, secret hash and numeric createdAt', async () => {
      const c = newClient({
        secretHash: hash(),
        createdAt: T0 + 5,
        metadata: {
          client_name: 'Ünïcødé «client» 📚',
          redirect_uris: ['http://127.0.0.1/a', 'http://[::1]:9000/b?x=1'],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_post',
          application_type: 'web',
          scope: 'openid courses:read',
          client_uri: 'https://example.test',
          contacts: ['ops@example.test'],
          software_id: 'sw',
          software_version: '1.0.0',
        },
      });
      await store.clients.create(c);
      const found = await store.clients.find(c.id);
      expect(found).toEqual(c);
      expectNumericTimes(found!, ['createdAt']);
    });

    it('find of an unknown id gives undefined', async () => {
      expect(await store.clients.find(id('lyc_client_'))).toBeUndefined();
    });

    it('createWithinCap creates while fewer than the cap exist, else false; racing calls from two stores never pass the cap', async () => {
      const other = await freshDatabaseUrl(kind);
      const stores = [openStore(databaseConfig(other)), openStore(databaseConfig(other))];
      try {
        await stores[0]!.migrate();
        const first = newClient();
        expect(await stores[0]!.clients.createWithinCap(first, 1)).toBe(true);
        expect(await stores[0]!.clients.find(first.id)).toEqual(first);
        const refused = newClient();
        expect(await stores[0]!.clients.createWithinCap(refused, 1)).toBe(false);
        // Clients known by a metadata document are not open registrations: they neither count nor are refused.
        await stores[0]!.clients.saveFromDocument('https://app.example/client.json', first.metadata, T0);
        expect(await stores[0]!.clients.createWithinCap(refused, 2)).toBe(true);
        await stores[0]!.clients.delete(refused.id);
        expect(await stores[0]!.clients.find(refused.id)).toBeUndefined();
        const results = await Promise.all(Array.from({ length: 12 }, (_, i) => stores[i % 2]!.clients.createWithinCap(newClient(), 4)));
        expect(results.filter(Boolean)).toHaveLength(3);
        expect((await stores[1]!.clients.list()).filter((c) => !c.id.startsWith('https://'))).toHaveLength(4);
      } finally {
        for (const st of stores) await st.close();
      }
    });

    it('createWithinCap counts only open-registration clients: the ones the school added do not fill the cap', async () => {
      const other = await freshDatabaseUrl(kind);
      const s = openStore(databaseConfig(other));
      try {
        await s.migrate();
        const school = newClient({ registration: 'operator' });
        await s.clients.create(school);
        expect(await s.clients.find(school.id)).toEqual(school);
        const first = newClient();
        expect(await s.clients.createWithinCap(first, 1)).toBe(true);
        expect(await s.clients.find(first.id)).toEqual(first);
        expect(await s.clients.createWithinCap(newClient(), 1)).toBe(false);
      } finally {
        await s.close();
      }
    });

    it('saveFromDocument creates a client known by its document, then replaces only its metadata; racing saves leave one row', async () => {
      const docId = `https://app.example/${id('client-')}.json`;
      const first = newClient().metadata;
      await store.clients.saveFromDocument(docId, first, T0 + 10);
      expect(await store.clients.find(docId)).toEqual({ id: docId, secretHash: null, metadata: first, createdAt: T0 + 10, lastUsedAt: null, registration: 'open' });
      await store.clients.markUsed(docId, T0 + 20);
      const second = { ...first, client_name: 'Renamed', redirect_uris: ['https://app.example/cb'] };
      await Promise.all([store.clients.saveFromDocument(docId, second, T0 + 30), store.clients.saveFromDocument(docId, second, T0 + 31)]);
      expect(await store.clients.find(docId)).toEqual({ id: docId, secretHash: null, metadata: second, createdAt: T0 + 10, lastUsedAt: T0 + 20, registration: 'open' });
      expect((await store.clients.list()).filter((c) => c.id === docId)).toHaveLength(1);
    });

    it('markUsed sets lastUsedAt, and moves it only once at least a minute has passed', async () => {
      const c = newClient();
      await store.clients.create(c);
      await store.clients.markUsed(c.id, T0 + 1_000);
      expect((await store.clients.find(c.id))?.lastUsedAt).toBe(T0 + 1_000);
      await store.clients.markUsed(c.id, T0 + 59_999);
      expect((await store.clients.find(c.id))?.lastUsedAt).toBe(T0 + 1_000);
      await store.clients.markUsed(c.id, T0 + 61_000);
      const found = await store.clients.find(c.id);
      expect(found?.lastUsedAt).toBe(T0 + 61_000);
      expectNumericTimes(found!, ['lastUsedAt']);
      await store.clients.markUsed(id('lyc_client_'), T0);
    });

    it('purgeNeverUsed deletes never-used open clients registered before the time, with their codes; keeps used, recent, token-holding and operator ones', async () => {
      const other = await freshDatabaseUrl(kind);
      const s = openStore(databaseConfig(other));
      try {
        await s.migrate();
        const u = newUser();
        await s.users.create(u);
        const idle = newClient({ createdAt: PAST });
        const used = newClient({ createdAt: PAST, lastUsedAt: PAST + 1 });
        const recent = newClient({ createdAt: PAST + 10_000 });
        const withToken = newClient({ createdAt: PAST });
        const schools = newClient({ createdAt: PAST, registration: 'operator' });
        for (const c of [idle, used, recent, withToken, schools]) await s.clients.create(c);
        const code = newCode(idle.id, u.id);
        await s.codes.save(code);
        await s.tokens.insert([newToken(withToken.id, u.id)]);
        expect(await s.clients.purgeNeverUsed(PAST + 5_000)).toBe(1);
        expect(await s.clients.find(idle.id)).toBeUndefined();
        expect(await s.codes.consume(code.hash, PAST)).toEqual({ status: 'unknown' });
        expect((await s.clients.list()).map((c) => c.id).sort()).toEqual([used.id, recent.id, withToken.id, schools.id].sort());
        expect(await s.clients.purgeNeverUsed(PAST + 5_000)).toBe(0);
      } finally {
        await s.close();
      }
    });

    it('list() returns clients oldest first', async () => {
      const base = T0 + 20_000_000;
      const b = newClient({ createdAt: base + 1 });
      const a = newClient({ createdAt: base });
      await store.clients.create(b);
      await store.clients.create(a);
      const all = await store.clients.list();
      expect(all.filter((c) => c.id === a.id || c.id === b.id).map((c) => c.id)).toEqual([a.id, b.id]);
      for (const c of all) expectNumericTimes(c, ['createdAt']);
      expect(all.find((c) => c.id === a.id)).toEqual(a);
    });

    it('delete removes the client with its codes, tokens and grants, and nothing of other clients', async () => {
      const u = newUser();
      await store.users.create(u);
      const doomed = newClient();
      const kept = newClient();
      await store.clients.create(doomed);
      await store.clients.create(kept);

      const doomedCode = newCode(doomed.id, u.id);
      const keptCode = newCode(kept.id, u.id);
      await store.codes.save(doomedCode);
      await store.codes.save(keptCode);
      const doomedTokens = [newToken(doomed.id, u.id, { kind: 'access' }), newToken(doomed.id, u.id)];
      const keptTokens = [newToken(kept.id, u.id, { kind: 'access' }), newToken(kept.id, u.id)];
      await store.tokens.insert([...doomedTokens, ...keptTokens]);
      await store.grants.upsert({ userId: u.id, clientId: doomed.id, scope: 'courses:read', createdAt: T0, updatedAt: T0 });
      await store.grants.upsert({ userId: u.id, clientId: kept.id, scope: 'courses:read', createdAt: T0, updatedAt: T0 });

      expect(await store.clients.delete(doomed.id)).toBe(true);

      expect(await store.clients.find(doomed.id)).toBeUndefined();
      expect(await store.codes.consume(doomedCode.hash, T0)).toEqual({ status: 'unknown' });
      for (const t of doomedTokens) expect(await store.tokens.find(t.hash)).toBeUndefined();
      expect(await store.grants.find(u.id, doomed.id)).toBeUndefined();
      expect((await store.grants.listForUser(u.id)).map((g) => g.clientId)).toEqual([kept.id]);

      expect(await store.clients.find(kept.id)).toEqual(kept);
      for (const t of keptTokens) expect(await store.tokens.find(t.hash)).toEqual(t);
      expect(await store.grants.find(u.id, kept.id)).toBeDefined();
      expect((await store.codes.consume(keptCode.hash, T0)).status).toBe('consumed');
      expect(await store.users.findById(u.id)).toEqual(u);
    });

    it('delete returns false for an unknown client, and for one already deleted', async () => {
      expect(await store.clients.delete(id('lyc_client_'))).toBe(false);
      const c = newClient();
      await store.clients.create(c);
      expect(await store.clients.delete(c.id)).toBe(true);
      expect(await store.clients.delete(c.id)).toBe(false);
    });
  });

  describe('authorization codes', () => {
    it('consume: first call gets consumed with the code, later calls already_consumed with the code', async () => {
      const code = newCode(client.id, user.id, { resource: 'http://127.0.0.1:3000/mcp' });
      await store.codes.save(code);
      const first = await store.codes.consume(code.hash, T0 + 1);
      expect(first).toEqual({ status: 'consumed', code });
      if (first.status !== 'consumed') throw new Error('unreachable');
      expectNumericTimes(first.code, ['authTime', 'expiresAt', 'createdAt']);
      const again = await store.codes.consume(code.hash, T0 + 2);
      expect(again).toEqual({ status: 'already_consumed', code });
      if (again.status !== 'already_consumed') throw new Error('unreachable');
      expectNumericTimes(again.code, ['authTime', 'expiresAt', 'createdAt']);
    });

    it('consume of an unknown hash gives unknown', async () => {
      expect(await store.codes.consume(hash(), T0)).toEqual({ status: 'unknown' });
    });

    it('consume does not check expiry', async () => {
      const code = newCode(client.id, user.id, { expiresAt: T0 - 1 });
      await store.codes.save(code);
      expect((await store.codes.consume(code.hash, T0 + 1_000_000)).status).toBe('consumed');
    });

    it('20 concurrent consume() calls: exactly one consumed, 19 already_consumed', async () => {
      const code = newCode(client.id, user.id);
      await store.codes.save(code);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.codes.consume(code.hash, T0 + i)));
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 'consumed')).toHaveLength(1);
      expect(statuses.filter((s) => s === 'already_consumed')).toHaveLength(19);
      for (const r of results) if (r.status !== 'unknown') expect(r.code.hash).toBe(code.hash);
    });

    it.runIf(kind === 'postgres')('20 concurrent consume() calls through two store instances: still exactly one winner', async () => {
      const second = openStore(databaseConfig(url));
      try {
        const code = newCode(client.id, user.id);
        await store.codes.save(code);
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => (i % 2 ? second : store).codes.consume(code.hash, T0 + i)),
        );
        expect(results.filter((r) => r.status === 'consumed')).toHaveLength(1);
        expect(results.filter((r) => r.status === 'already_consumed')).toHaveLength(19);
      } finally {
        await second.close();
      }
    });

    it("consume(issue): the winner's tokens are stored with the consumption; issue runs once, for the winner only", async () => {
      const code = newCode(client.id, user.id);
      await store.codes.save(code);
      const calls: AuthorizationCode[] = [];
      const minted: Token[] = [];
      const issue = (c: AuthorizationCode) => {
        calls.push(c);
        const pair = [
          newToken(c.clientId, c.userId, { kind: 'access', familyId: c.familyId, salt: null }),
          newToken(c.clientId, c.userId, { familyId: c.familyId }),
        ];
        minted.push(...pair);
        return pair;
      };
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.codes.consume(code.hash, T0 + i, issue)));
      expect(results.filter((r) => r.status === 'consumed')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'already_consumed')).toHaveLength(19);
      expect(calls).toHaveLength(1);
      expect(calls[0]).toEqual(code);
      for (const t of minted) expect(await store.tokens.find(t.hash)).toEqual(t);
      // A replay that revokes the family sees them.
      expect(await store.tokens.revokeFamily(code.familyId, T0 + 100)).toBe(2);
    });

    it('consume(issue): when storing the issued tokens fails, the code stays unconsumed', async () => {
      const code = newCode(client.id, user.id);
      await store.codes.save(code);
      // A token naming a client that does not exist violates a foreign key.
      const bad = newToken(id('lyc_client_missing_'), user.id, { familyId: code.familyId });
      await expect(store.codes.consume(code.hash, T0, () => [bad])).rejects.toThrow();
      expect(await store.tokens.find(bad.hash)).toBeUndefined();
      const good = newToken(client.id, user.id, { familyId: code.familyId });
      const retry = await store.codes.consume(code.hash, T0 + 1, () => [good]);
      expect(retry.status).toBe('consumed');
      expect(await store.tokens.find(good.hash)).toEqual(good);
    });

    it('consume(issue) of an unknown or already consumed code never calls issue', async () => {
      let called = 0;
      const issue = () => {
        called++;
        return [];
      };
      expect(await store.codes.consume(hash(), T0, issue)).toEqual({ status: 'unknown' });
      const code = newCode(client.id, user.id);
      await store.codes.save(code);
      expect((await store.codes.consume(code.hash, T0)).status).toBe('consumed');
      expect((await store.codes.consume(code.hash, T0, issue)).status).toBe('already_consumed');
      expect(called).toBe(0);
    });

    it('purgeExpired deletes codes that expired before the given time and returns how many', async () => {
      const gone1 = newCode(client.id, user.id, { expiresAt: PAST - 10, createdAt: PAST - 100 });
      const gone2 = newCode(client.id, user.id, { expiresAt: PAST - 1, createdAt: PAST - 100 });
      const atBoundary = newCode(client.id, user.id, { expiresAt: PAST, createdAt: PAST - 100 });
      const live = newCode(client.id, user.id, { expiresAt: PAST + 1, createdAt: PAST - 100 });
      for (const c of [gone1, gone2, atBoundary, live]) await store.codes.save(c);
      expect(await store.codes.purgeExpired(PAST)).toBe(2);
      expect(await store.codes.consume(gone1.hash, T0)).toEqual({ status: 'unknown' });
      expect(await store.codes.consume(gone2.hash, T0)).toEqual({ status: 'unknown' });
      expect((await store.codes.consume(atBoundary.hash, T0)).status).toBe('consumed');
      expect((await store.codes.consume(live.hash, T0)).status).toBe('consumed');
      expect(await store.codes.purgeExpired(PAST)).toBe(0);
    });
  });

  describe('tokens', () => {
    it('insert → find round-trips every field with numeric times', async () => {
      const access = newToken(client.id, user.id, { kind: 'access', resource: 'http://127.0.0.1:3000', salt: null });
      const refresh = newToken(client.id, user.id, { familyId: access.familyId, revokedAt: T0 + 7, rotatedAt: T0 + 6 });
      await store.tokens.insert([access, refresh]);
      const a = await store.tokens.find(access.hash);
      const r = await store.tokens.find(refresh.hash);
      expect(a).toEqual(access);
      expect(r).toEqual(refresh);
      expectNumericTimes(a!, ['authTime', 'expiresAt', 'createdAt', 'revokedAt', 'rotatedAt']);
      expectNumericTimes(r!, ['authTime', 'expiresAt', 'createdAt', 'revokedAt', 'rotatedAt']);
      expect(typeof r!.revokedAt).toBe('number');
      expect(typeof r!.rotatedAt).toBe('number');
    });

    it('find of an unknown hash gives undefined; insert([]) does nothing', async () => {
      await store.tokens.insert([]);
      expect(await store.tokens.find(hash())).toBeUndefined();
    });

    it('insert is idempotent: a hash already present is left as it is, new ones in the batch still go in', async () => {
      const t = newToken(client.id, user.id);
      await store.tokens.insert([t]);
      await store.tokens.insert([t]);
      const changed = { ...t, scope: 'courses:write', expiresAt: T0 + 1, revokedAt: T0 };
      const fresh = newToken(client.id, user.id, { kind: 'access', salt: null });
      await store.tokens.insert([changed, fresh]);
      expect(await store.tokens.find(t.hash)).toEqual(t);
      expect(await store.tokens.find(fresh.hash)).toEqual(fresh);
    });

    it('concurrent inserts of the same hash all succeed and leave one row', async () => {
      const t = newToken(client.id, user.id);
      const results = await Promise.allSettled(Array.from({ length: 10 }, () => store.tokens.insert([t])));
      expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
      expect(await store.tokens.find(t.hash)).toEqual(t);
    });

    it('rotate: a live refresh token is marked rotated and its successors are inserted', async () => {
      const old = newToken(client.id, user.id);
      await store.tokens.insert([old]);
      const successors = [
        newToken(client.id, user.id, { kind: 'access', familyId: old.familyId, salt: null }),
        newToken(client.id, user.id, { familyId: old.familyId }),
      ];
      const result = await store.tokens.rotate(old.hash, () => T0 + 100, successors);
      expect(result.status).toBe('rotated');
      if (result.status !== 'rotated') throw new Error('unreachable');
      expect(result.token.hash).toBe(old.hash);
      expectNumericTimes(result.token, ['authTime', 'expiresAt', 'createdAt', 'revokedAt', 'rotatedAt']);
      const after = await store.tokens.find(old.hash);
      expect(after).toMatchObject({ rotatedAt: T0 + 100, revokedAt: null });
      expect(typeof after!.rotatedAt).toBe('number');
      for (const s of successors) expect(await store.tokens.find(s.hash)).toEqual(s);
    });

    it('rotate does not check expiry', async () => {
      const old = newToken(client.id, user.id, { expiresAt: T0 - 1 });
      await store.tokens.insert([old]);
      expect((await store.tokens.rotate(old.hash, () => T0 + 1_000_000, [])).status).toBe('rotated');
    });

    it('rotate of an already rotated token gives already_rotated and leaves its new successors out', async () => {
      const old = newToken(client.id, user.id);
      await store.tokens.insert([old]);
      const firstSuccessor = newToken(client.id, user.id, { familyId: old.familyId });
      expect((await store.tokens.rotate(old.hash, () => T0 + 1, [firstSuccessor])).status).toBe('rotated');
      const lateSuccessor = newToken(client.id, user.id, { familyId: old.familyId });
      const again = await store.tokens.rotate(old.hash, () => T0 + 2, [lateSuccessor]);
      expect(again.status).toBe('already_rotated');
      if (again.status !== 'already_rotated') throw new Error('unreachable');
      expect(again.token).toMatchObject({ hash: old.hash, rotatedAt: T0 + 1 });
      expect(await store.tokens.find(lateSuccessor.hash)).toBeUndefined();
      expect(await store.tokens.find(firstSuccessor.hash)).toEqual(firstSuccessor);
      expect((await store.tokens.find(old.hash))!.rotatedAt).toBe(T0 + 1);
    });

    it('20 concurrent rotate() calls: exactly one rotated, only its successors are stored', async () => {
      const old = newToken(client.id, user.id);
      await store.tokens.insert([old]);
      const successorSets = Array.from({ length: 20 }, () => [
        newToken(client.id, user.id, { kind: 'access', familyId: old.familyId, salt: null }),
        newToken(client.id, user.id, { familyId: old.familyId }),
      ]);
      const results = await Promise.all(successorSets.map((s, i) => store.tokens.rotate(old.hash, () => T0 + 1000 + i, s)));
      const winners = results.flatMap((r, i) => (r.status === 'rotated' ? [i] : []));
      expect(winners).toHaveLength(1);
      expect(results.filter((r) => r.status === 'already_rotated')).toHaveLength(19);
      const winner = winners[0]!;
      for (const [i, set] of successorSets.entries()) {
        for (const s of set) {
          const found = await store.tokens.find(s.hash);
          if (i === winner) expect(found).toEqual(s);
          else expect(found, `successor of loser ${i}`).toBeUndefined();
        }
      }
      expect((await store.tokens.find(old.hash))!.rotatedAt).toBe(T0 + 1000 + winner);
    });

    it('rotation and successor insertion are one transaction: a failing successor leaves the token unrotated', async () => {
      const old = newToken(client.id, user.id);
      await store.tokens.insert([old]);
      // The successor names a client that does not exist: its insert violates a foreign key.
      const bad = newToken(id('lyc_client_missing_'), user.id, { familyId: old.familyId });
      const good = newToken(client.id, user.id, { kind: 'access', familyId: old.familyId, salt: null });
      await expect(store.tokens.rotate(old.hash, () => T0 + 1, [good, bad])).rejects.toThrow();
      expect((await store.tokens.find(old.hash))!.rotatedAt).toBeNull();
      expect(await store.tokens.find(good.hash)).toBeUndefined();
      expect(await store.tokens.find(bad.hash)).toBeUndefined();
      // ...and can still be rotated afterwards.
      expect((await store.tokens.rotate(old.hash, () => T0 + 2, [good])).status).toBe('rotated');
      expect(await store.tokens.find(good.hash)).toEqual(good);
    });

    it('rotate of a revoked refresh token gives unusable (with the token) and inserts nothing', async () => {
      const old = newToken(client.id, user.id, { revokedAt: T0 });
      await store.tokens.insert([old]);
      const successor = newToken(client.id, user.id, { familyId: old.familyId });
      const result = await store.tokens.rotate(old.hash, () => T0 + 1, [successor]);
      expect(result.status).toBe('unusable');
      if (result.status === 'unusable' && result.token) expect(result.token.hash).toBe(old.hash);
      expect(await store.tokens.find(successor.hash)).toBeUndefined();
      expect((await store.tokens.find(old.hash))!.rotatedAt).toBeNull();
    });

    it('rotate of a token revoked after insert (via revoke) gives unusable', async () => {
      const old = newToken(client.id, user.id);
      await store.tokens.insert([old]);
      expect(await store.tokens.revoke(old.hash, T0 + 1)).toBe(true);
      expect((await store.tokens.rotate(old.hash, () => T0 + 2, [])).status).toBe('unusable');
    });

    it('rotate of an unknown hash gives unusable without a token', async () => {
      const successor = newToken(client.id, user.id);
      const result = await store.tokens.rotate(hash(), () => T0, [successor]);
      expect(result).toEqual({ status: 'unusable' });
      expect(await store.tokens.find(successor.hash)).toBeUndefined();
    });

    it('rotate of an access token gives unusable', async () => {
      const access = newToken(client.id, user.id, { kind: 'access', salt: null });
      await store.tokens.insert([access]);
      expect((await store.tokens.rotate(access.hash, () => T0 + 1, [])).status).toBe('unusable');
      expect((await store.tokens.find(access.hash))!.rotatedAt).toBeNull();
    });

    it('revoke: true once with revokedAt set, then false; false for an unknown hash', async () => {
      const t = newToken(client.id, user.id, { kind: 'access', salt: null });
      await store.tokens.insert([t]);
      expect(await store.tokens.revoke(t.hash, T0 + 3)).toBe(true);
      const after = await store.tokens.find(t.hash);
      expect(after!.revokedAt).toBe(T0 + 3);
      expect(typeof after!.revokedAt).toBe('number');
      expect(await store.tokens.revoke(t.hash, T0 + 4)).toBe(false);
      expect((await store.tokens.find(t.hash))!.revokedAt).toBe(T0 + 3);
      expect(await store.tokens.revoke(hash(), T0)).toBe(false);
    });

    it('revokeFamily revokes every live token of the family, returns how many, and spares other families', async () => {
      const familyId = randomUUID();
      const members = [
        newToken(client.id, user.id, { familyId, kind: 'access', salt: null }),
        newToken(client.id, user.id, { familyId, rotatedAt: T0 }),
        newToken(client.id, user.id, { familyId }),
      ];
      const alreadyRevoked = newToken(client.id, user.id, { familyId, revokedAt: T0 - 1 });
      const stranger = newToken(client.id, user.id);
      await store.tokens.insert([...members, alreadyRevoked, stranger]);
      expect(await store.tokens.revokeFamily(familyId, T0 + 50)).toBe(3);
      for (const m of members) expect((await store.tokens.find(m.hash))!.revokedAt).toBe(T0 + 50);
      expect((await store.tokens.find(alreadyRevoked.hash))!.revokedAt).toBe(T0 - 1);
      expect((await store.tokens.find(stranger.hash))!.revokedAt).toBeNull();
      expect(await store.tokens.revokeFamily(familyId, T0 + 60)).toBe(0);
      expect(await store.tokens.revokeFamily(randomUUID(), T0)).toBe(0);
    });

    it('revokeForGrant revokes the live tokens of one user at one client only', async () => {
      const u = newUser();
      const other = newUser();
      const c = newClient();
      const otherClient = newClient();
      await store.users.create(u);
      await store.users.create(other);
      await store.clients.create(c);
      await store.clients.create(otherClient);
      const targets = [newToken(c.id, u.id, { kind: 'access', salt: null }), newToken(c.id, u.id), newToken(c.id, u.id)];
      const revokedBefore = newToken(c.id, u.id, { revokedAt: T0 - 5 });
      const sameUserOtherClient = newToken(otherClient.id, u.id);
      const otherUserSameClient = newToken(c.id, other.id);
      await store.tokens.insert([...targets, revokedBefore, sameUserOtherClient, otherUserSameClient]);
      expect(await store.tokens.revokeForGrant(u.id, c.id, T0 + 9)).toBe(3);
      for (const t of targets) expect((await store.tokens.find(t.hash))!.revokedAt).toBe(T0 + 9);
      expect((await store.tokens.find(revokedBefore.hash))!.revokedAt).toBe(T0 - 5);
      expect((await store.tokens.find(sameUserOtherClient.hash))!.revokedAt).toBeNull();
      expect((await store.tokens.find(otherUserSameClient.hash))!.revokedAt).toBeNull();
      expect(await store.tokens.revokeForGrant(u.id, c.id, T0 + 10)).toBe(0);
    });

    it('purgeExpired deletes tokens expired or revoked before the given time and returns how many', async () => {
      const far = PAST + 10_000_000;
      const expired = newToken(client.id, user.id, { createdAt: PAST - 100, expiresAt: PAST - 1 });
      const expiredAccess = newToken(client.id, user.id, { kind: 'access', salt: null, createdAt: PAST - 100, expiresAt: PAST - 50 });
      const revokedEarly = newToken(client.id, user.id, { createdAt: PAST - 100, expiresAt: far, revokedAt: PAST - 1 });
      const expiresAtBoundary = newToken(client.id, user.id, { createdAt: PAST - 100, expiresAt: PAST });
      const revokedAtBoundary = newToken(client.id, user.id, { createdAt: PAST - 100, expiresAt: far, revokedAt: PAST });
      const live = newToken(client.id, user.id, { createdAt: PAST - 100, expiresAt: far });
      const all = [expired, expiredAccess, revokedEarly, expiresAtBoundary, revokedAtBoundary, live];
      await store.tokens.insert(all);
      expect(await store.tokens.purgeExpired(PAST)).toBe(3);
      for (const t of [expired, expiredAccess, revokedEarly]) expect(await store.tokens.find(t.hash)).toBeUndefined();
      for (const t of [expiresAtBoundary, revokedAtBoundary, live]) expect(await store.tokens.find(t.hash)).toEqual(t);
      expect(await store.tokens.purgeExpired(PAST)).toBe(0);
    });

    it('purgeExpired works through more rows than one batch takes, and keeps every live token', async () => {
      const far = PAST + 10_000_000;
      const expired = Array.from({ length: 450 }, () => newToken(client.id, user.id, { createdAt: PAST - 100, expiresAt: PAST - 10 }));
      const revoked = Array.from({ length: 330 }, () => newToken(client.id, user.id, { createdAt: PAST - 100, expiresAt: far, revokedAt: PAST - 10 }));
      const live = Array.from({ length: 40 }, (_, i) =>
        newToken(client.id, user.id, { createdAt: PAST - 100, expiresAt: far, revokedAt: i % 2 ? PAST + 5 : null }),
      );
      await store.tokens.insert([...expired, ...revoked, ...live]);
      expect(await store.tokens.purgeExpired(PAST)).toBe(expired.length + revoked.length);
      for (const t of live) expect(await store.tokens.find(t.hash)).toEqual(t);
      for (const t of [expired[0]!, expired.at(-1)!, revoked[0]!, revoked.at(-1)!]) expect(await store.tokens.find(t.hash)).toBeUndefined();
    });
  });

  describe('sessions', () => {
    it('findLive returns the session only while now < expiresAt', async () => {
      const s: Session = { hash: hash(), userId: user.id, authTime: T0, expiresAt: T0 + 1000 };
      await store.sessions.create(s);
      const live = await store.sessions.findLive(s.hash, T0);
      expect(live).toEqual(s);
      expectNumericTimes(live!, ['authTime', 'expiresAt']);
      expect(await store.sessions.findLive(s.hash, T0 + 999)).toEqual(s);
      expect(await store.sessions.findLive(s.hash, T0 + 1000)).toBeUndefined();
      expect(await store.sessions.findLive(s.hash, T0 + 5000)).toBeUndefined();
    });

    it('findLive of an unknown hash gives undefined; delete removes a session; delete of unknown is harmless', async () => {
      expect(await store.sessions.findLive(hash(), T0)).toBeUndefined();
      const s: Session = { hash: hash(), userId: user.id, authTime: T0, expiresAt: T0 + 1000 };
      await store.sessions.create(s);
      await store.sessions.delete(s.hash);
      expect(await store.sessions.findLive(s.hash, T0)).toBeUndefined();
      await expect(store.sessions.delete(hash())).resolves.toBeUndefined();
    });

    it('purgeExpired deletes sessions that expired before the given time', async () => {
      const gone: Session = { hash: hash(), userId: user.id, authTime: PAST - 100, expiresAt: PAST - 1 };
      const boundary: Session = { hash: hash(), userId: user.id, authTime: PAST - 100, expiresAt: PAST };
      const live: Session = { hash: hash(), userId: user.id, authTime: PAST - 100, expiresAt: PAST + 100 };
      for (const s of [gone, boundary, live]) await store.sessions.create(s);
      expect(await store.sessions.purgeExpired(PAST)).toBe(1);
      expect(await store.sessions.findLive(boundary.hash, PAST - 1)).toEqual(boundary);
      expect(await store.sessions.findLive(live.hash, PAST - 1)).toEqual(live);
      expect(await store.sessions.findLive(gone.hash, PAST - 50)).toBeUndefined();
    });
  });

  describe('sessions: deleteForUser', () => {
    it('deletes every session of the user but the one excepted, returns how many, and spares other users', async () => {
      const u = newUser();
      const other = newUser();
      await store.users.create(u);
      await store.users.create(other);
      const mine = [0, 1, 2].map((): Session => ({ hash: hash(), userId: u.id, authTime: T0, expiresAt: T0 + 1000 }));
      const theirs: Session = { hash: hash(), userId: other.id, authTime: T0, expiresAt: T0 + 1000 };
      for (const s of [...mine, theirs]) await store.sessions.create(s);
      expect(await store.sessions.deleteForUser(u.id, mine[0]!.hash)).toBe(2);
      expect(await store.sessions.findLive(mine[0]!.hash, T0)).toEqual(mine[0]);
      for (const s of mine.slice(1)) expect(await store.sessions.findLive(s.hash, T0)).toBeUndefined();
      expect(await store.sessions.findLive(theirs.hash, T0)).toEqual(theirs);
      expect(await store.sessions.deleteForUser(u.id)).toBe(1);
      expect(await store.sessions.findLive(mine[0]!.hash, T0)).toBeUndefined();
      expect(await store.sessions.deleteForUser(u.id)).toBe(0);
      expect(await store.sessions.findLive(theirs.hash, T0)).toEqual(theirs);
    });
  });

  describe('tokens: revokeForUser', () => {
    it('revokes the live tokens of one user at every client, returns how many, and spares other users', async () => {
      const u = newUser();
      const other = newUser();
      const c = newClient();
      await store.users.create(u);
      await store.users.create(other);
      await store.clients.create(c);
      const targets = [newToken(c.id, u.id, { kind: 'access', salt: null }), newToken(c.id, u.id), newToken(client.id, u.id)];
      const revokedBefore = newToken(c.id, u.id, { revokedAt: T0 - 5 });
      const otherUser = newToken(c.id, other.id);
      await store.tokens.insert([...targets, revokedBefore, otherUser]);
      expect(await store.tokens.revokeForUser(u.id, T0 + 7)).toBe(3);
      for (const t of targets) expect((await store.tokens.find(t.hash))!.revokedAt).toBe(T0 + 7);
      expect((await store.tokens.find(revokedBefore.hash))!.revokedAt).toBe(T0 - 5);
      expect((await store.tokens.find(otherUser.hash))!.revokedAt).toBeNull();
      expect(await store.tokens.revokeForUser(u.id, T0 + 8)).toBe(0);
    });
  });

  describe('password failures', () => {
    /** 0 for the first two failures, then 1 s doubling: the shape the sign-in throttle uses. */
    const delayFor = (failures: number) => (failures < 3 ? 0 : 1000 * 2 ** (failures - 3));
    const KEEP = 10_000;
    const claim = (key: string, now: number) => store.passwordFailures.claim(key, now, delayFor, KEEP);

    it('claim counts each allowed check, refuses while the key waits without counting, and forgets KEEP after the wait', async () => {
      const key = hash();
      expect(await claim(key, T0)).toEqual({ allowed: true, failures: 1, blockedUntil: T0 });
      expect(await claim(key, T0 + 1)).toEqual({ allowed: true, failures: 2, blockedUntil: T0 + 1 });
      const third = await claim(key, T0 + 2);
      expect(third).toEqual({ allowed: true, failures: 3, blockedUntil: T0 + 1002 });
      expectNumericTimes(third, ['blockedUntil']);
      // Waiting: refused, and the refusal is not counted.
      expect(await claim(key, T0 + 500)).toEqual({ allowed: false, failures: 3, blockedUntil: T0 + 1002 });
      expect(await claim(key, T0 + 1001)).toEqual({ allowed: false, failures: 3, blockedUntil: T0 + 1002 });
      expect(await claim(key, T0 + 1002)).toEqual({ allowed: true, failures: 4, blockedUntil: T0 + 3002 });
      // Kept until KEEP after the wait ends, then forgotten: the next check counts from 1 again.
      expect(await claim(key, T0 + 3002 + KEEP - 1)).toEqual({ allowed: true, failures: 5, blockedUntil: T0 + 3002 + KEEP - 1 + 4000 });
      expect(await claim(key, T0 + 7001 + 2 * KEEP)).toEqual({ allowed: true, failures: 1, blockedUntil: T0 + 7001 + 2 * KEEP });
    });

    it('clear forgets one key only', async () => {
      const [a, b] = [hash(), hash()];
      for (const now of [T0, T0, T0]) await claim(a, now);
      await claim(b, T0);
      await store.passwordFailures.clear(a);
      expect(await claim(a, T0)).toEqual({ allowed: true, failures: 1, blockedUntil: T0 });
      expect(await claim(b, T0)).toEqual({ allowed: true, failures: 2, blockedUntil: T0 });
      await expect(store.passwordFailures.clear(hash())).resolves.toBeUndefined();
    });

    it('of many racing claims of one key, exactly as many as reach the wait are allowed', async () => {
      const key = hash();
      const claims = await Promise.all(Array.from({ length: 8 }, () => claim(key, T0)));
      expect(claims.filter((c) => c.allowed).map((c) => c.failures).sort()).toEqual([1, 2, 3]);
      expect(claims.filter((c) => !c.allowed)).toEqual(Array.from({ length: 5 }, () => ({ allowed: false, failures: 3, blockedUntil: T0 + 1000 })));
    });

    it('a check that starts no wait refuses no racing claim, even one whose clock read came earlier', async () => {
      const key = hash();
      expect(await claim(key, T0 + 5)).toEqual({ allowed: true, failures: 1, blockedUntil: T0 + 5 });
      expect(await claim(key, T0)).toEqual({ allowed: true, failures: 2, blockedUntil: T0 });
    });

    it('purgeExpired deletes counts that expired before the given time', async () => {
      const [gone, boundary, kept] = [hash(), hash(), hash()];
      await claim(gone, PAST - KEEP - 1);
      await claim(boundary, PAST - KEEP);
      await claim(kept, PAST);
      expect(await store.passwordFailures.purgeExpired(PAST)).toBe(1);
      // The kept counts go on; the purged one starts again.
      expect(await claim(boundary, PAST - KEEP)).toEqual({ allowed: true, failures: 2, blockedUntil: PAST - KEEP });
      expect(await claim(kept, PAST)).toEqual({ allowed: true, failures: 2, blockedUntil: PAST });
      expect(await claim(gone, PAST - KEEP - 1)).toEqual({ allowed: true, failures: 1, blockedUntil: PAST - KEEP - 1 });
    });
  });

  describe('grants', () => {
    it('upsert creates, a second upsert replaces the scope and updatedAt; find returns numeric times', async () => {
      const c = newClient();
      await store.clients.create(c);
      const g: Grant = { userId: user.id, clientId: c.id, scope: 'courses:read', createdAt: T0, updatedAt: T0 };
      await store.grants.upsert(g);
      const created = await store.grants.find(user.id, c.id);
      expect(created).toEqual(g);
      expectNumericTimes(created!, ['createdAt', 'updatedAt']);
      await store.grants.upsert({ ...g, scope: 'openid courses:write', updatedAt: T0 + 10 });
      const replaced = await store.grants.find(user.id, c.id);
      expect(replaced).toMatchObject({ userId: user.id, clientId: c.id, scope: 'openid courses:write', updatedAt: T0 + 10 });
      expectNumericTimes(replaced!, ['createdAt', 'updatedAt']);
      expect((await store.grants.listForUser(user.id)).filter((x) => x.clientId === c.id)).toHaveLength(1);
    });

    it('concurrent upserts of one grant all succeed and leave one row', async () => {
      const c = newClient();
      await store.clients.create(c);
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          store.grants.upsert({ userId: user.id, clientId: c.id, scope: `scope-${i}`, createdAt: T0, updatedAt: T0 + i }),
        ),
      );
      expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
      expect((await store.grants.listForUser(user.id)).filter((x) => x.clientId === c.id)).toHaveLength(1);
    });

    it('find of an unknown pair gives undefined', async () => {
      expect(await store.grants.find(user.id, id('lyc_client_'))).toBeUndefined();
      expect(await store.grants.find(id('u-'), client.id)).toBeUndefined();
    });

    it("listForUser lists exactly that user's grants", async () => {
      const u = newUser();
      const other = newUser();
      await store.users.create(u);
      await store.users.create(other);
      const clients = [newClient(), newClient(), newClient()];
      for (const c of clients) await store.clients.create(c);
      for (const [i, c] of clients.entries()) {
        await store.grants.upsert({ userId: u.id, clientId: c.id, scope: 'courses:read', createdAt: T0 + i, updatedAt: T0 + i });
      }
      await store.grants.upsert({ userId: other.id, clientId: clients[0]!.id, scope: 'openid', createdAt: T0, updatedAt: T0 });
      const listed = await store.grants.listForUser(u.id);
      expect(listed.map((g) => g.clientId).sort()).toEqual(clients.map((c) => c.id).sort());
      for (const g of listed) {
        expect(g.userId).toBe(u.id);
        expectNumericTimes(g, ['createdAt', 'updatedAt']);
      }
      expect(await store.grants.listForUser(id('u-'))).toEqual([]);
    });

    it('delete: true once, then false; the other grants stay', async () => {
      const u = newUser();
      await store.users.create(u);
      const a = newClient();
      const b = newClient();
      await store.clients.create(a);
      await store.clients.create(b);
      await store.grants.upsert({ userId: u.id, clientId: a.id, scope: 'openid', createdAt: T0, updatedAt: T0 });
      await store.grants.upsert({ userId: u.id, clientId: b.id, scope: 'openid', createdAt: T0, updatedAt: T0 });
      expect(await store.grants.delete(u.id, a.id)).toBe(true);
      expect(await store.grants.find(u.id, a.id)).toBeUndefined();
      expect(await store.grants.delete(u.id, a.id)).toBe(false);
      expect(await store.grants.find(u.id, b.id)).toBeDefined();
    });

    it('delete: the user\'s codes at that client die with the grant; other codes stay', async () => {
      const u = newUser();
      const other = newUser();
      await store.users.create(u);
      await store.users.create(other);
      const a = newClient();
      const b = newClient();
      await store.clients.create(a);
      await store.clients.create(b);
      await store.grants.upsert({ userId: u.id, clientId: a.id, scope: 'openid', createdAt: T0, updatedAt: T0 });
      const doomed = newCode(a.id, u.id);
      const otherClient = newCode(b.id, u.id);
      const otherUser = newCode(a.id, other.id);
      for (const c of [doomed, otherClient, otherUser]) await store.codes.save(c);
      expect(await store.grants.delete(u.id, a.id)).toBe(true);
      expect(await store.codes.consume(doomed.hash, T0)).toEqual({ status: 'unknown' });
      expect((await store.codes.consume(otherClient.hash, T0)).status).toBe('consumed');
      expect((await store.codes.consume(otherUser.hash, T0)).status).toBe('consumed');
    });
  });

  describe('records (platform tables)', () => {
    const coupon = (over: Record<string, unknown> = {}) => ({
      id: id('cpn_'),
      created_at: T0,
      updated_at: T0,
      code: id('CODE-'),
      percent_off: 10,
      amount_off_cents: null,
      valid_until: T0 + 86_400_000,
      max_redemptions: 0,
      times_redeemed: 0,
      active: 1,
      ...over,
    });

    it('insert → get round-trips a row; bigint columns come back as numbers', async () => {
      const row = coupon();
      await store.records.insert('coupons', row);
      const got = await store.records.get('coupons', row.id);
      expect(got).toEqual(row);
      for (const col of ['created_at', 'updated_at', 'valid_until', 'percent_off', 'active']) {
        expect(typeof got![col], col).toBe('number');
      }
      expect(await store.records.get('coupons', id('cpn_'))).toBeUndefined();
    });

    it('insert throws DuplicateError when a unique column is taken', async () => {
      const row = coupon();
      await store.records.insert('coupons', row);
      await expect(store.records.insert('coupons', coupon({ code: row.code }))).rejects.toBeInstanceOf(DuplicateError);
      await expect(store.records.insert('coupons', coupon({ id: row.id }))).rejects.toBeInstanceOf(DuplicateError);
    });

    it('update returns the updated row, undefined for an unknown id, and DuplicateError on a taken unique value', async () => {
      const a = coupon();
      const b = coupon();
      await store.records.insert('coupons', a);
      await store.records.insert('coupons', b);
      const updated = await store.records.update('coupons', a.id, { percent_off: 50, updated_at: T0 + 5 });
      expect(updated).toEqual({ ...a, percent_off: 50, updated_at: T0 + 5 });
      expect(typeof updated!.updated_at).toBe('number');
      expect(await store.records.update('coupons', id('cpn_'), { percent_off: 1 })).toBeUndefined();
      await expect(store.records.update('coupons', b.id, { code: a.code })).rejects.toBeInstanceOf(DuplicateError);
      expect(await store.records.get('coupons', b.id)).toEqual(b);
    });

    it('delete: true once, then false', async () => {
      const row = coupon();
      await store.records.insert('coupons', row);
      expect(await store.records.delete('coupons', row.id)).toBe(true);
      expect(await store.records.delete('coupons', row.id)).toBe(false);
      expect(await store.records.get('coupons', row.id)).toBeUndefined();
    });

    it('list filters, sorts ascending with ties by id, and pages by key without gaps or repeats, even with inserts between pages', async () => {
      const batch = id('batch-');
      const rows = Array.from({ length: 7 }, (_, i) =>
        ({ id: `stu_${batch}_${i}`, created_at: T0 + (i % 3), updated_at: T0, name: `Student ${i}`, email: `${batch}-${i}@school.test`, status: i === 6 ? 'suspended' : 'active', user_id: null, notes: batch }),
      );
      for (const r of [...rows].reverse()) await store.records.insert('students', r);
      const where: [string, '=', unknown][] = [['notes', '=', batch], ['status', '=', 'active']];
      const expected = rows
        .filter((r) => r.status === 'active')
        .sort((x, y) => x.created_at - y.created_at || (x.id < y.id ? -1 : 1))
        .map((r) => r.id);

      const seen: string[] = [];
      let after: [unknown, string] | undefined;
      for (let page = 0; page < 10; page++) {
        const res = await store.records.list('students', { where, sort: 'created_at', limit: 2, ...(after ? { after } : {}) });
        expect(res.rows.length).toBeLessThanOrEqual(2);
        seen.push(...res.rows.map((r) => String(r.id)));
        if (page === 0) {
          // A row sorting before the cursor, inserted mid-way, must not shift the pages.
          await store.records.insert('students', { ...rows[0]!, id: `stu_${batch}_early`, created_at: T0 - 1, email: `${batch}-early@school.test` });
        }
        if (!res.next) break;
        expect(typeof res.next[0]).toBe('number');
        after = res.next;
      }
      expect(seen).toEqual(expected);
      expect(await store.records.count('students', where)).toBe(expected.length + 1);
    });

    it('list search is a case-insensitive substring match, with % and _ taken literally', async () => {
      const batch = id('search-');
      const mk = (name: string, i: number) => ({ id: `stu_${batch}_${i}`, created_at: T0, updated_at: T0, name, email: `${batch}-${i}@school.test`, status: 'active', user_id: null, notes: batch });
      const names = ['Ada LOVELACE', 'ada lovelace', 'Grace Hopper', '100% Ada', 'ada_x', 'adaXx'];
      for (const [i, n] of names.entries()) await store.records.insert('students', mk(n, i));
      const search = async (text: string) =>
        (await store.records.list('students', { where: [['notes', '=', batch]], search: { columns: ['name'], text }, sort: 'id', limit: 50 })).rows
          .map((r) => r.name)
          .sort();
      expect(await search('LoveLace')).toEqual(['Ada LOVELACE', 'ada lovelace']);
      expect(await search('0% a')).toEqual(['100% Ada']);
      expect(await search('a_x')).toEqual(['ada_x']);
      expect(await search('')).toHaveLength(names.length);
    });

    it('list gives each call its own values when a query shape repeats: filters, in-lists of other lengths, a search over two columns', async () => {
      const batch = id('shape-');
      const mk = (i: number, status: string, name: string) =>
        ({ id: `stu_${batch}_${i}`, created_at: T0 + i, updated_at: T0, name, email: `${batch}-${i}-${name.replace(/ /g, '')}@school.test`, status, user_id: null, notes: batch });
      const rows = [mk(0, 'active', 'Ada'), mk(1, 'suspended', 'Grace'), mk(2, 'active', 'Alan'), mk(3, 'invited', 'Edsger')];
      for (const r of rows) await store.records.insert('students', r);
      const ids = async (q: Omit<Parameters<Store['records']['list']>[1], 'sort' | 'limit'>, limit = 10) =>
        (await store.records.list('students', { sort: 'created_at', limit, ...q })).rows.map((r) => String(r.id).slice(-1));
      const byStatus = (status: string) => ids({ where: [['notes', '=', batch], ['status', '=', status]] });
      expect(await byStatus('active')).toEqual(['0', '2']);
      expect(await byStatus('suspended')).toEqual(['1']);
      expect(await byStatus('gone')).toEqual([]);
      const inStatus = (statuses: string[]) => ids({ where: [['notes', '=', batch], ['status', 'in', statuses]] });
      expect(await inStatus(['invited'])).toEqual(['3']);
      expect(await inStatus(['suspended', 'invited'])).toEqual(['1', '3']);
      expect(await inStatus(['active'])).toEqual(['0', '2']);
      const search = (text: string) => ids({ where: [['notes', '=', batch]], search: { columns: ['name', 'email'], text } });
      expect(await search('gRACE')).toEqual(['1']);
      expect(await search('-2-')).toEqual(['2']);
      expect(await search('a')).toEqual(['0', '1', '2', '3']);
      expect(await ids({ where: [['notes', '=', batch]] }, 1)).toEqual(['0']);
      expect(await ids({ where: [['notes', '=', batch]] }, 3)).toEqual(['0', '1', '2']);
    });

    it("count, select and 'in' conditions", async () => {
      const batch = id('sel-');
      const rows = [0, 1, 2].map((i) => coupon({ code: `${batch}-${i}`, percent_off: i * 10, active: i % 2 }));
      for (const r of rows) await store.records.insert('coupons', r);
      const codes = rows.map((r) => r.code);
      expect(await store.records.count('coupons', [['code', 'in', codes]])).toBe(3);
      expect(await store.records.count('coupons', [['code', 'in', codes], ['active', '=', 1]])).toBe(1);
      expect(await store.records.count('coupons', [['code', 'in', codes], ['percent_off', '>=', 10]])).toBe(2);
      const selected = await store.records.select('coupons', ['code', 'percent_off'], [['code', 'in', codes], ['percent_off', '<', 20]]);
      expect(selected.map((r) => ({ ...r })).sort((a, b) => String(a.code).localeCompare(String(b.code)))).toEqual([
        { code: `${batch}-0`, percent_off: 0 },
        { code: `${batch}-1`, percent_off: 10 },
      ]);
    });

    it('clear deletes every row of the named tables', async () => {
      const other = await freshDatabaseUrl(kind);
      const s = openStore(databaseConfig(other));
      try {
        await s.migrate();
        await s.records.insert('coupons', coupon());
        await s.records.insert('pages', { id: id('pag_'), created_at: T0, updated_at: T0, title: 'T', slug: id('s-'), body: '', status: 'draft' });
        await s.records.insert('posts', { id: id('pst_'), created_at: T0, updated_at: T0, title: 'T', slug: id('s-'), excerpt: null, body: '', author_name: null, published_at: null, status: 'draft' });
        await s.records.clear(['coupons', 'pages']);
        expect(await s.records.count('coupons', [])).toBe(0);
        expect(await s.records.count('pages', [])).toBe(0);
        expect(await s.records.count('posts', [])).toBe(1);
      } finally {
        await s.close();
      }
    });
  });

  describe('settings and files', () => {
    it('settings: get of an unknown name is undefined; put creates, then replaces', async () => {
      const name = id('setting-');
      expect(await store.settings.get(name)).toBeUndefined();
      await store.settings.put(name, { school: 'Lyceum', colours: ['#fff'], nested: { a: 1 } }, T0);
      expect(await store.settings.get(name)).toEqual({ school: 'Lyceum', colours: ['#fff'], nested: { a: 1 } });
      await store.settings.put(name, { school: 'Renamed' }, T0 + 1);
      expect(await store.settings.get(name)).toEqual({ school: 'Renamed' });
    });

    it('files: insert → find with numeric size and createdAt; list newest first up to the limit; delete', async () => {
      const files = [0, 1, 2].map((i) => ({
        id: id('fil_'),
        name: `f${i}.pdf`,
        contentType: 'application/pdf',
        size: 10 * 1024 * 1024 - i,
        sha256: hash(),
        uploadedBy: i === 0 ? null : user.id,
        createdAt: T0 + 30_000_000 + i,
      }));
      for (const f of files) await store.files.insert(f);
      const found = await store.files.find(files[1]!.id);
      expect(found).toEqual(files[1]);
      expectNumericTimes(found!, ['createdAt', 'size']);
      expect(typeof found!.size).toBe('number');
      expect(await store.files.find(id('fil_'))).toBeUndefined();
      const listed = await store.files.list(2);
      expect(listed.map((f) => f.id)).toEqual([files[2]!.id, files[1]!.id]);
      expect(await store.files.delete(files[0]!.id)).toBe(true);
      expect(await store.files.delete(files[0]!.id)).toBe(false);
      expect(await store.files.find(files[0]!.id)).toBeUndefined();
    });

    it('files: insertWithinQuota stores up to the quota exactly, refuses past it with the bytes used; usedBytes counts stored files and a delete frees them', async () => {
      const other = await freshDatabaseUrl(kind);
      const s = openStore(databaseConfig(other));
      try {
        await s.migrate();
        const file = (size: number) => ({ id: id('fil_'), name: 'q.txt', contentType: 'text/plain', size, sha256: hash(), uploadedBy: null, createdAt: T0 });
        expect(await s.files.usedBytes()).toBe(0);
        const a = file(600);
        expect(await s.files.insertWithinQuota(a, 1000)).toEqual({ stored: true });
        expect(await s.files.find(a.id)).toEqual(a);
        const b = file(401);
        expect(await s.files.insertWithinQuota(b, 1000)).toEqual({ stored: false, usedBytes: 600 });
        expect(await s.files.find(b.id)).toBeUndefined();
        expect(await s.files.insertWithinQuota(file(400), 1000)).toEqual({ stored: true });
        expect(await s.files.usedBytes()).toBe(1000);
        expect(await s.files.delete(a.id)).toBe(true);
        expect(await s.files.usedBytes()).toBe(400);
        expect(await s.files.insertWithinQuota(b, 1000)).toEqual({ stored: true });
      } finally {
        await s.close();
      }
    });

    it('files: of many racing insertWithinQuota calls from two stores on one database, only as many as fit are stored', async () => {
      const other = await freshDatabaseUrl(kind);
      const stores = [openStore(databaseConfig(other)), openStore(databaseConfig(other))];
      try {
        await stores[0]!.migrate();
        const results = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            stores[i % 2]!.files.insertWithinQuota({ id: id('fil_'), name: 'r.txt', contentType: 'text/plain', size: 300, sha256: hash(), uploadedBy: null, createdAt: T0 }, 1000),
          ),
        );
        expect(results.filter((r) => r.stored)).toHaveLength(3);
        expect(await stores[1]!.files.usedBytes()).toBe(900);
      } finally {
        for (const st of stores) await st.close();
      }
    });
  });

  describe('signing keys', () => {
    const key = (over: Partial<SigningKey>): SigningKey => ({
      kid: id('kid-'),
      alg: 'ES256',
      publicJwk: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' },
      sealedPrivateJwk: 'sealed.jwe',
      createdAt: T0,
      retiredAt: null,
      ...over,
    });

    it('retireOthers retires every current key of the algorithm except the kept one, and listPublished shows the window', async () => {
      const old = key({ createdAt: T0 + 1 });
      const keep = key({ createdAt: T0 + 2 });
      const rsa = key({ alg: 'RS256', publicJwk: { kty: 'RSA', n: 'n', e: 'AQAB' }, createdAt: T0 + 3 });
      const longRetired = key({ createdAt: T0, retiredAt: T0 - 1_000_000 });
      for (const k of [old, keep, rsa, longRetired]) await store.signingKeys.insert(k);
      expect(await store.signingKeys.retireOthers('ES256', keep.kid, T0 + 100)).toBe(1);
      expect(await store.signingKeys.retireOthers('ES256', keep.kid, T0 + 200)).toBe(0);
      const published = await store.signingKeys.listPublished(T0);
      expect(published.map((k) => k.kid)).toEqual([rsa.kid, keep.kid, old.kid]);
      expect(published.find((k) => k.kid === old.kid)).toEqual({ ...old, retiredAt: T0 + 100 });
      expect(published.find((k) => k.kid === rsa.kid)).toEqual(rsa);
      for (const k of published) expectNumericTimes(k, ['createdAt', 'retiredAt']);
      expect((await store.signingKeys.listPublished(T0 + 101)).map((k) => k.kid)).toEqual([rsa.kid, keep.kid]);
    });
  });
});

describe.runIf(STORE_KINDS.includes('postgres'))('PostgreSQL store in a schema of a shared database', () => {
  it('migrates and works in a fresh schema even when another schema of the database already holds Lyceum tables', async () => {
    // freshDatabaseUrl('postgres') selects a new schema through search_path, as a deployment sharing a database would.
    const [first, second] = [openStore(databaseConfig(await freshDatabaseUrl('postgres'))), openStore(databaseConfig(await freshDatabaseUrl('postgres')))];
    try {
      await first.migrate();
      await second.migrate();
      const u = newUser();
      await second.users.create(u);
      expect(await second.users.findById(u.id)).toEqual(u);
      expect(await first.users.findById(u.id)).toBeUndefined();
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('migrate() is not disturbed by other schemas being created and dropped in the same database meanwhile', async () => {
    // A database of its own, so the churn below cannot reach the other test files' schemas.
    const db = await freshPostgresDatabase();
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    let stop = false;
    const churn = (async () => {
      for (let i = 0; !stop; i++) {
        await admin.query(`CREATE SCHEMA other_app_${i}; CREATE TABLE other_app_${i}.t (id text)`);
        await admin.query(`DROP SCHEMA other_app_${i} CASCADE`);
      }
    })();
    const results: string[] = [];
    try {
      for (let k = 0; k < 8; k++) {
        const schema = `lyceum_${k}`;
        await admin.query(`CREATE SCHEMA ${schema}`);
        const url = new URL(db.url);
        url.searchParams.set('options', `-c search_path=${schema}`);
        const store = openStore(databaseConfig(url.href));
        try {
          await store.migrate();
          results.push('ok');
        } catch (err) {
          results.push((err as Error).message);
        } finally {
          await store.close();
        }
      }
    } finally {
      stop = true;
      await churn.catch(() => undefined);
      await admin.end();
      await db.drop();
    }
    expect(results).toEqual(Array.from({ length: 8 }, () => 'ok'));
  }, 60_000);

  it('times are stored in bigint columns and come back as numbers, up to the largest Date', async () => {
    const url = await freshDatabaseUrl('postgres');
    const store = openStore(databaseConfig(url));
    try {
      await store.migrate();
      const u = newUser({ createdAt: 8_640_000_000_000_000, updatedAt: 8_640_000_000_000_000 });
      await store.users.create(u);
      expect(await store.users.findById(u.id)).toEqual(u);
      const raw = new pg.Client({ connectionString: url });
      await raw.connect();
      try {
        const r = await raw.query<{ c: string; t: string }>(
          `select table_name || '.' || column_name as c, data_type as t from information_schema.columns
           where table_schema = current_schema() and column_name in ('expires_at', 'created_at', 'revoked_at', 'rotated_at', 'auth_time')
           order by 1`,
        );
        expect(r.rows.length).toBeGreaterThan(0);
        for (const row of r.rows) expect(row.t, row.c).toBe('bigint');
      } finally {
        await raw.end();
      }
    } finally {
      await store.close();
    }
  });
});
