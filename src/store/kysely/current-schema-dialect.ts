import { PostgresDialect, sql, type DatabaseIntrospector, type Kysely, type TableMetadata } from 'kysely';

/**
 * Kysely's PostgreSQL introspector reads every schema of the database; when
 * another application drops a schema while it runs, the query fails. Lyceum
 * only ever needs its own schema (the connection's current_schema), and the
 * migrator only asks which schemas and tables exist, so this introspector
 * answers exactly that.
 */
class CurrentSchemaIntrospector implements DatabaseIntrospector {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  constructor(private readonly db: Kysely<any>) {}

  async getSchemas() {
    const r = await sql<{ name: string }>`select current_schema() as name`.execute(this.db);
    return r.rows;
  }

  async getTables(): Promise<TableMetadata[]> {
    const r = await sql<{ name: string; schema: string }>`
      select tablename as name, schemaname as schema from pg_catalog.pg_tables where schemaname = current_schema()`.execute(this.db);
    return r.rows.map((t) => ({ name: t.name, schema: t.schema, isView: false, columns: [] }));
  }

  async getMetadata() {
    return { tables: await this.getTables() };
  }
}

export class CurrentSchemaPostgresDialect extends PostgresDialect {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}
