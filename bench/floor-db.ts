/**
 * The floor server's database: the Lyceum SQLite file of the run, opened as
 * src/store/kysely/open.ts opens it (WAL, synchronous=NORMAL, foreign keys,
 * busy_timeout; WAL checkpoints on a worker thread instead of inside
 * commits), and the few better-sqlite3 prepared statements the floor
 * endpoints run. Same tables, columns and indexes as Lyceum: they are
 * Lyceum's own, made by its migrations.
 */
import SQLite from 'better-sqlite3';
import { startCheckpointer } from '../src/store/kysely/open.ts';
import type { ClientsTable, TokensTable } from '../src/store/kysely/schema.ts';

export type TokenRow = TokensTable;

export type ClientRow = ClientsTable;

export interface UserRow {
  id: string;
  email: string;
  name: string;
  role: string;
  updated_at: number;
}

export type StudentRow = Record<string, string | number | null> & { id: string; created_at: number; updated_at: number };

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
  startCheckpointer(db, file);

  const token = db.prepare<[string], TokenRow>('SELECT * FROM tokens WHERE hash = ?');
  const client = db.prepare<[string], ClientRow>('SELECT * FROM clients WHERE id = ?');
  const user = db.prepare<[string], UserRow>('SELECT * FROM users WHERE id = ?');
  // The query Lyceum's record store runs for the first page of GET /api/v1/students (one row more tells whether a next page exists).
  const students = db.prepare<[number], StudentRow>('SELECT * FROM students ORDER BY created_at, id LIMIT ?');
  const retire = db.prepare<[number, string]>("UPDATE tokens SET rotated_at = ? WHERE hash = ? AND kind = 'refresh' AND rotated_at IS NULL AND revoked_at IS NULL");
  const insertPair = db.prepare(`INSERT INTO tokens (${TOKEN_COLUMNS}) VALUES ${ROW}, ${ROW} ON CONFLICT (hash) DO NOTHING`);
  const insertClient = db.prepare<[string, string | null, string, number]>('INSERT INTO clients (id, secret_hash, metadata, created_at) VALUES (?, ?, ?, ?)');

  /** One transaction: retire the presented refresh token if still live, insert its successors. False when it was not live any more. */
  const rotate = db.transaction((hash: string, now: number, access: NewToken, refresh: NewToken): boolean => {
    if (retire.run(now, hash).changes !== 1) return false;
    insertPair.run(...values(access), ...values(refresh));
    return true;
  });

  return {
    token: (hash: string) => token.get(hash),
    client: (id: string) => client.get(id),
    user: (id: string) => user.get(id),
    students: (limit: number) => students.all(limit),
    rotate: (hash: string, now: number, access: NewToken, refresh: NewToken) => rotate(hash, now, access, refresh),
    insertClient: (c: ClientRow) => insertClient.run(c.id, c.secret_hash, c.metadata, c.created_at),
  };
}

export type FloorDb = ReturnType<typeof openFloorDb>;
