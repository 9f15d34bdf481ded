import { sql, type Kysely } from 'kysely';
import { onPostgres } from './dialect-of.ts';

/**
 * The number of clients open registration counts against
 * MAX_REGISTERED_CLIENTS, kept in `counters` by triggers on `clients`, so
 * that a registration reads one row instead of counting every client (and,
 * on PostgreSQL, locking the table against every other write to it, the
 * token endpoint's last-use marks included). Triggers keep it exact on every
 * path that adds or removes a client: registration, the CLI, deletion and
 * the purge, on any instance. A client counts when open registration made it
 * and its id is not an https URL (those are known by their metadata document).
 */
const counted = (row: 'new' | 'old') => `${row}.registration = 'open' and ${row}.id not like 'https://%'`;
const change = (by: string) => `update counters set value = value ${by} where name = 'open_clients'`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('counters')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into counters (name, value) select 'open_clients', count(*) from clients where registration = 'open' and id not like 'https://%'`.execute(db);
  if (onPostgres(db)) {
    // NEW is null in a DELETE trigger and OLD in an INSERT one: the operation is tested first.
    await sql
      .raw(
        `create function lyceum_count_open_clients() returns trigger language plpgsql as $$
         begin
           if tg_op <> 'DELETE' then
             if ${counted('new')} then ${change('+ 1')}; end if;
           end if;
           if tg_op <> 'INSERT' then
             if ${counted('old')} then ${change('- 1')}; end if;
           end if;
           return null;
         end $$`,
      )
      .execute(db);
    await sql.raw(`create trigger clients_open_count after insert or delete or update of id, registration on clients for each row execute function lyceum_count_open_clients()`).execute(db);
    return;
  }
  await sql.raw(`create trigger clients_open_count_insert after insert on clients when ${counted('new')} begin ${change('+ 1')}; end`).execute(db);
  await sql.raw(`create trigger clients_open_count_delete after delete on clients when ${counted('old')} begin ${change('- 1')}; end`).execute(db);
  await sql
    .raw(
      `create trigger clients_open_count_update after update of id, registration on clients begin ${change(`+ (case when ${counted('new')} then 1 else 0 end) - (case when ${counted('old')} then 1 else 0 end)`)}; end`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (onPostgres(db)) {
    await sql.raw('drop trigger clients_open_count on clients').execute(db);
    await sql.raw('drop function lyceum_count_open_clients()').execute(db);
  } else {
    for (const t of ['insert', 'delete', 'update']) await sql.raw(`drop trigger clients_open_count_${t}`).execute(db);
  }
  await db.schema.dropTable('counters').execute();
}
