/**
 * The floor server's database: the Lyceum SQLite file of the run, opened as
 * src/store/kysely/open.ts opens it (WAL, synchronous=NORMAL, foreign keys,
 * busy_timeout; WAL checkpoints on a worker thread instead of inside
 * commits), and the few better-sqlite3 prepared statements the floor
 * endpoints run, the code flow's included. Same tables, columns and indexes
 * as Lyceum: they are Lyceum's own, made by its migrations.
 */
import SQLite from 'better-sqlite3';
import { maintenanceThread } from '../src/store/kysely/maintenance-thread.ts';
import type { ClientsTable, CodesTable, TokensTable } from '../src/store/kysely/schema.ts';

export type TokenRow = TokensTable;

export type CodeRow = CodesTable;

/** A live session and what the flow needs of its user. */
export interface SessionRow {
  user_id: string;
  auth_time: number;
  email: string;
  role: string;
}

export type ClientRow = ClientsTable;

export interface UserRow {
  id: string;
  email: string;
  name: string;
  role: string;
  updated_at: number;
}

export type RecordRow = Record<string, string | number | null> & { id: string; created_at: number; updated_at: number };

const TOKEN_COLUMNS = 'hash, kind, client_id, user_id, scope, resource, family_id, auth_time, expires_at, created_at, revoked_at, rotated_at, salt';
const ROW = `(${TOKEN_COLUMNS.split(', ').map(() => '?').join(', ')})`;

export type NewToken = Omit<TokenRow, 'revoked_at' | 'rotated_at'>;
const values = (t: NewToken) => [t.hash, t.kind, t.client_id, t.user_id, t.scope, t.resource, t.family_id, t.auth_time, t.expires_at, t.created_at, null, null, t.salt];

export function openFloorDb(file: string) {
  const db = new SQLite(file, { fileMustExist: true });
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  maintenanceThread(db, file).start();

  const token = db.prepare<[string], TokenRow>('SELECT * FROM tokens WHERE hash = ?');
  const client = db.prepare<[string], ClientRow>('SELECT * FROM clients WHERE id = ?');
  const user = db.prepare<[string], UserRow>('SELECT * FROM users WHERE id = ?');
  // The query Lyceum's record store runs for the first page of GET /api/v1/students (one row more tells whether a next page exists).
  const students = db.prepare<[number], RecordRow>('SELECT * FROM students ORDER BY created_at, id LIMIT ?');
  // The anonymous catalog's first page of GET /api/v1/courses: published courses only.
  const publishedCourses = db.prepare<[number], RecordRow>("SELECT * FROM courses WHERE status = 'published' ORDER BY created_at, id LIMIT ?");
  const retire = db.prepare<[number, string]>("UPDATE tokens SET rotated_at = ? WHERE hash = ? AND kind = 'refresh' AND rotated_at IS NULL AND revoked_at IS NULL");
  const insertPair = db.prepare(`INSERT INTO tokens (${TOKEN_COLUMNS}) VALUES ${ROW}, ${ROW} ON CONFLICT (hash) DO NOTHING`);
  const insertClient = db.prepare<[string, string | null, string, number]>('INSERT INTO clients (id, secret_hash, metadata, created_at) VALUES (?, ?, ?, ?)');
  // The code flow's statements (bench/floor-flow-routes.ts).
  const userByEmail = db.prepare<[string], { id: string; password_hash: string }>('SELECT id, password_hash FROM users WHERE email = ?');
  // Lyceum reads the session, then its user: one join here.
  const session = db.prepare<[string, number], SessionRow>(
    'SELECT s.user_id, s.auth_time, u.email, u.role FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.hash = ? AND s.expires_at > ?',
  );
  const insertSession = db.prepare<[string, string, number, number]>('INSERT INTO sessions (hash, user_id, auth_time, expires_at) VALUES (?, ?, ?, ?)');
  const deleteSession = db.prepare<[string]>('DELETE FROM sessions WHERE hash = ?');
  const insertCode = db.prepare<[string, string, string, string, string, string | null, string | null, string, number, string, number, number]>(
    'INSERT INTO authorization_codes (hash, client_id, user_id, redirect_uri, scope, resource, nonce, code_challenge, auth_time, family_id, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  // The user's consent to the client, which the connected-apps page lists.
  const upsertGrant = db.prepare<[string, string, string, number, number]>(
    'INSERT INTO grants (user_id, client_id, scope, created_at, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id, client_id) DO UPDATE SET scope = excluded.scope, updated_at = excluded.updated_at',
  );
  // One conditional UPDATE: the database decides the single winner of a code.
  const consumeCode = db.prepare<[number, string], CodeRow>('UPDATE authorization_codes SET consumed_at = ? WHERE hash = ? AND consumed_at IS NULL RETURNING *');
  const insertOne = db.prepare(`INSERT INTO tokens (${TOKEN_COLUMNS}) VALUES ${ROW} ON CONFLICT (hash) DO NOTHING`);
  const revokeCodeFamily = db.prepare<[number, string]>(
    'UPDATE tokens SET revoked_at = ? WHERE revoked_at IS NULL AND family_id = (SELECT family_id FROM authorization_codes WHERE hash = ?)',
  );

  /** One transaction: retire the presented refresh token if still live, insert its successors. False when it was not live any more. */
  const rotate = db.transaction((hash: string, now: number, access: NewToken, refresh: NewToken): boolean => {
    if (retire.run(now, hash).changes !== 1) return false;
    insertPair.run(...values(access), ...values(refresh));
    return true;
  });

  /** One transaction (one commit): the code and the grant it records. */
  const issueCode = db.transaction((c: Omit<CodeRow, 'consumed_at'>) => {
    insertCode.run(c.hash, c.client_id, c.user_id, c.redirect_uri, c.scope, c.resource, c.nonce, c.code_challenge, c.auth_time, c.family_id, c.expires_at, c.created_at);
    upsertGrant.run(c.user_id, c.client_id, c.scope, c.created_at, c.created_at);
  });

  /**
   * One transaction: consume the code if unused, insert the tokens `mint`
   * makes of it (none when a check fails: the code is burnt all the same).
   * The code's row, or undefined when it was unknown or already used.
   */
  const exchange = db.transaction((hash: string, now: number, mint: (c: CodeRow) => NewToken[]): CodeRow | undefined => {
    const c = consumeCode.get(now, hash);
    if (!c) return undefined;
    const [access, refresh] = mint(c);
    if (access && refresh) insertPair.run(...values(access), ...values(refresh));
    else if (access) insertOne.run(...values(access));
    return c;
  });

  return {
    token: (hash: string) => token.get(hash),
    client: (id: string) => client.get(id),
    user: (id: string) => user.get(id),
    students: (limit: number) => students.all(limit),
    publishedCourses: (limit: number) => publishedCourses.all(limit),
    rotate: (hash: string, now: number, access: NewToken, refresh: NewToken) => rotate(hash, now, access, refresh),
    insertClient: (c: Omit<ClientRow, 'last_used_at'>) => insertClient.run(c.id, c.secret_hash, c.metadata, c.created_at),
    userByEmail: (email: string) => userByEmail.get(email),
    session: (hash: string, now: number) => session.get(hash, now),
    insertSession: (hash: string, userId: string, now: number, expiresAt: number) => insertSession.run(hash, userId, now, expiresAt),
    deleteSession: (hash: string) => deleteSession.run(hash),
    issueCode: (c: Omit<CodeRow, 'consumed_at'>) => issueCode(c),
    exchange: (hash: string, now: number, mint: (c: CodeRow) => NewToken[]) => exchange(hash, now, mint),
    /** A replayed code: its family's tokens are revoked (RFC 6749 §4.1.2). */
    revokeCodeFamily: (now: number, hash: string) => revokeCodeFamily.run(now, hash),
  };
}

export type FloorDb = ReturnType<typeof openFloorDb>;
