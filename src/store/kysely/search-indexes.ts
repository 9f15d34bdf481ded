import { sql, type Kysely } from 'kysely';
import type { IndexSpec } from '../types.ts';
import type { Database } from './schema.ts';

/**
 * Substring search that does not read every row. A list's `q` is a
 * case-insensitive substring of any searchable column; the store keeps that
 * test (lower(column) LIKE '%q%') and lets an index find the candidates:
 *
 * - SQLite: an FTS5 table with the trigram tokenizer per searchable table,
 *   kept by triggers, holding each record's id. Its rows are found for a
 *   change through a table of its own with an INTEGER PRIMARY KEY, since
 *   VACUUM (and VACUUM INTO, a common backup) may renumber the implicit
 *   rowids of the record tables.
 * - PostgreSQL: a GIN pg_trgm index on lower(column) per searchable column,
 *   which the planner uses for the LIKE as it is. Without the extension
 *   (not installed and no right to install it) search works as before.
 *
 * Trigrams need three characters: a shorter `q` is matched by the LIKE alone.
 */

/** Every search object this module makes starts so. */
const PREFIX = 'ls_';
export const MIN_SEARCH_LENGTH = 3;

const names = (table: string) => ({ fts: `${PREFIX}${table}`, docs: `${PREFIX}${table}_docs`, triggers: ['ai', 'ad', 'au'].map((t) => `${PREFIX}${table}_${t}`) });
const list = (columns: string[], prefix = '') => columns.map((c) => `${prefix}"${c}"`).join(', ');

async function sqliteTable(db: Kysely<Database>, spec: IndexSpec): Promise<void> {
  const { fts, docs, triggers } = names(spec.table);
  // The FTS table holds the record's id as well (not indexed), so a search reads ids straight from it.
  const have = (await sql<{ name: string }>`select name from pragma_table_info(${fts})`.execute(db)).rows.map((r) => r.name);
  if (have.join(',') === ['id', ...spec.columns].join(',')) return;
  await dropSqlite(db, spec.table);
  const [ai, ad, au] = triggers;
  const t = `"${spec.table}"`;
  await sql.raw(`create table "${docs}" (doc integer primary key, id text not null unique)`).execute(db);
  await sql.raw(`create virtual table "${fts}" using fts5(id unindexed, ${list(spec.columns)}, tokenize = 'trigram')`).execute(db);
  await sql.raw(`insert into "${docs}" (id) select id from ${t}`).execute(db);
  await sql.raw(`insert into "${fts}" (rowid, id, ${list(spec.columns)}) select d.doc, r.id, ${list(spec.columns, 'r.')} from ${t} r join "${docs}" d on d.id = r.id`).execute(db);
  await sql
    .raw(
      `create trigger "${ai}" after insert on ${t} begin
         insert into "${docs}" (id) values (new.id);
         insert into "${fts}" (rowid, id, ${list(spec.columns)}) select doc, new.id, ${list(spec.columns, 'new.')} from "${docs}" where id = new.id;
       end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger "${ad}" after delete on ${t} begin
         delete from "${fts}" where rowid = (select doc from "${docs}" where id = old.id);
         delete from "${docs}" where id = old.id;
       end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger "${au}" after update of ${list(spec.columns)} on ${t} begin
         update "${fts}" set ${spec.columns.map((c) => `"${c}" = new."${c}"`).join(', ')} where rowid = (select doc from "${docs}" where id = new.id);
       end`,
    )
    .execute(db);
}

async function dropSqlite(db: Kysely<Database>, table: string): Promise<void> {
  const { fts, docs, triggers } = names(table);
  for (const trigger of triggers) await sql.raw(`drop trigger if exists "${trigger}"`).execute(db);
  await sql.raw(`drop table if exists "${fts}"`).execute(db);
  await sql.raw(`drop table if exists "${docs}"`).execute(db);
}

async function ensureSqlite(db: Kysely<Database>, specs: IndexSpec[]): Promise<void> {
  for (const spec of specs) await sqliteTable(db, spec);
  const made = (
    await sql<{
      name: string;
    }>`select name from sqlite_master where type = 'table' and substr(name, 1, ${PREFIX.length}) = ${PREFIX} and name not like '%\\_docs' escape '\\' and sql like 'CREATE VIRTUAL TABLE%'`.execute(db)
  ).rows;
  for (const { name } of made) {
    const table = name.slice(PREFIX.length);
    if (!specs.some((s) => s.table === table)) await dropSqlite(db, table);
  }
}

const pgIndexName = (table: string, column: string) => `${PREFIX}${table}__${column}`.slice(0, 63);

async function ensurePostgres(db: Kysely<Database>, specs: IndexSpec[]): Promise<void> {
  // The extension is the database's, in one schema for all (public unless it was installed
  // elsewhere before): its operator class is named with that schema, so schemas that do not have
  // it on their search path can use it too.
  let schema: string | undefined;
  try {
    await sql`savepoint trgm`.execute(db);
    await sql`create extension if not exists pg_trgm schema public`.execute(db);
    schema = (await sql<{ schema: string }>`select extnamespace::regnamespace::text as schema from pg_extension where extname = 'pg_trgm'`.execute(db)).rows[0]?.schema;
    await sql`release savepoint trgm`.execute(db);
  } catch {
    await sql`rollback to savepoint trgm`.execute(db);
  }
  // Without it (not installed and no right to install it) the LIKE still answers, by reading the rows.
  if (!schema) return;
  const wanted = new Set<string>();
  for (const spec of specs) {
    for (const column of spec.columns) {
      const name = pgIndexName(spec.table, column);
      wanted.add(name);
      // fastupdate off: a search would otherwise also read the index's list of entries not yet merged,
      // which a bulk load (a seeded or imported school) leaves long until a vacuum; records change rarely.
      await sql.raw(`create index if not exists "${name}" on "${spec.table}" using gin (lower("${column}") ${schema}.gin_trgm_ops) with (fastupdate = off)`).execute(db);
    }
  }
  const made = (await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema() and left(indexname, ${PREFIX.length}) = ${PREFIX}`.execute(db)).rows;
  for (const { name } of made) if (!wanted.has(name)) await sql.raw(`drop index if exists "${name}"`).execute(db);
}

/** Makes the search indexes of these specs, and drops those of tables no spec names; inside the caller's transaction on PostgreSQL. */
export async function ensureSearchIndexes(db: Kysely<Database>, kind: 'sqlite' | 'postgres', specs: IndexSpec[]): Promise<void> {
  if (kind === 'sqlite') await ensureSqlite(db, specs);
  else await ensurePostgres(db, specs);
}

/** The name of a table's FTS5 table (SQLite), for the list query. */
export const sqliteSearchTable = (table: string) => names(table).fts;

/** An FTS5 query for `text` as one phrase: a substring match with the trigram tokenizer. */
export const ftsPhrase = (text: string) => `"${text.replace(/"/g, '""')}"`;
