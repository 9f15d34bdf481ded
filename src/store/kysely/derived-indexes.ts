import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { IndexSpec } from '../types.ts';
import type { Database } from './schema.ts';
import { ensureSearchIndexes } from './search-indexes.ts';

/** Every index this module made starts so; no other index does. */
const PREFIX = 'lx_';

/** A stable name under PostgreSQL's 63-byte limit: the table and columns, or a hash of them when too long. */
export function derivedIndexName(spec: IndexSpec): string {
  const plain = `${PREFIX}${spec.table}__${spec.columns.join('__')}`;
  if (plain.length <= 63) return plain;
  return `${PREFIX}${spec.table.slice(0, 30)}__${createHash('sha256').update(plain).digest('hex').slice(0, 16)}`;
}

/** The indexes of a table as name → columns in order (unique constraints and primary keys included). */
async function indexesOf(db: Kysely<Database>, kind: 'sqlite' | 'postgres', table: string): Promise<Map<string, string[]>> {
  if (kind === 'sqlite') {
    const names = await sql<{ name: string }>`select name from pragma_index_list(${table})`.execute(db);
    const out = new Map<string, string[]>();
    for (const { name } of names.rows)
      out.set(
        name,
        (await sql<{ name: string }>`select name from pragma_index_info(${name}) order by seqno`.execute(db)).rows.map((r) => r.name),
      );
    return out;
  }
  const rows = await sql<{ name: string; columns: string[] }>`
    select i.relname as name, array_agg(a.attname::text order by k.ord) as columns
    from pg_index x
    join pg_class t on t.oid = x.indrelid
    join pg_namespace n on n.oid = t.relnamespace
    join pg_class i on i.oid = x.indexrelid
    cross join lateral unnest(x.indkey) with ordinality as k(attnum, ord)
    join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
    where t.relname = ${table} and n.nspname = current_schema()
    group by i.relname`.execute(db);
  return new Map(rows.rows.map((r) => [r.name, r.columns]));
}

const startsWith = (columns: string[], prefix: string[]) => prefix.every((c, i) => columns[i] === c);

/** The tables holding an index this module made. */
async function tablesWithDerived(db: Kysely<Database>, kind: 'sqlite' | 'postgres'): Promise<string[]> {
  const rows =
    kind === 'sqlite'
      ? await sql<{ table: string }>`select distinct tbl_name as "table" from sqlite_master where type = 'index' and substr(name, 1, ${PREFIX.length}) = ${PREFIX}`.execute(db)
      : await sql<{ table: string }>`select distinct tablename as "table" from pg_indexes where schemaname = current_schema() and left(indexname, ${PREFIX.length}) = ${PREFIX}`.execute(db);
  return rows.rows.map((r) => r.table);
}

/** Any fixed number: the PostgreSQL advisory lock that lets one instance at a time change the derived indexes. */
const POSTGRES_LOCK = 7_431_016;

/**
 * Makes the database hold an index for each spec, derived from declarations
 * rather than written in a migration: each missing one is created (an
 * existing index that starts with the same columns serves as well), and an
 * index made here that no spec asks for any more is dropped; search specs
 * go to search-indexes.ts. All in one transaction: instances starting
 * together take turns (an advisory lock on PostgreSQL, the writer lock on
 * SQLite), each reading what the one before made.
 */
export async function ensureIndexes(db: Kysely<Database>, kind: 'sqlite' | 'postgres', specs: IndexSpec[]): Promise<{ created: string[]; dropped: string[] }> {
  const plain = specs.filter((s) => !s.search);
  const search = specs.filter((s) => s.search);
  const work = async (trx: Kysely<Database>) => {
    const changes = await reconcile(trx, kind, plain);
    await ensureSearchIndexes(trx, kind, search);
    return changes;
  };
  if (kind === 'postgres') {
    return db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${POSTGRES_LOCK})`.execute(trx);
      return work(trx);
    });
  }
  // BEGIN IMMEDIATE takes the writer lock before the first read: a deferred transaction that read
  // first could not take it later while another process writes (SQLITE_BUSY without waiting).
  return db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const changes = await work(conn);
      await sql`commit`.execute(conn);
      return changes;
    } catch (err) {
      await sql`rollback`.execute(conn);
      throw err;
    }
  });
}

async function reconcile(db: Kysely<Database>, kind: 'sqlite' | 'postgres', specs: IndexSpec[]): Promise<{ created: string[]; dropped: string[] }> {
  const created: string[] = [];
  const dropped: string[] = [];
  const tables = [...new Set([...specs.map((s) => s.table), ...(await tablesWithDerived(db, kind))])];
  for (const table of tables) {
    const existing = await indexesOf(db, kind, table);
    const keep = new Set<string>();
    for (const spec of specs.filter((s) => s.table === table)) {
      const name = derivedIndexName(spec);
      const served = [...existing].find(([n, cols]) => n === name || (!n.startsWith(PREFIX) && startsWith(cols, spec.columns)));
      if (served) {
        keep.add(served[0]);
        continue;
      }
      await db.schema.createIndex(name).ifNotExists().on(table).columns(spec.columns).execute();
      existing.set(name, spec.columns);
      keep.add(name);
      created.push(name);
    }
    for (const name of existing.keys()) {
      if (!name.startsWith(PREFIX) || keep.has(name)) continue;
      await db.schema.dropIndex(name).ifExists().execute();
      dropped.push(name);
    }
  }
  return { created, dropped };
}
