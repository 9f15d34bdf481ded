import type { CompiledQuery, DatabaseConnection, Driver, QueryCompiler, TransactionSettings } from 'kysely';

/** Connections whose queries already translate their errors (the driver hands the same one out again). */
const translating = new WeakSet<DatabaseConnection>();

/**
 * A Kysely driver whose errors pass through `translate` at their source: a
 * failed wait for a connection, and every statement (begin, commit and
 * rollback included). Kysely rolls a transaction back whatever the error, so
 * translating never leaves half a write behind.
 */
export class FaultTranslatingDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly translate: (err: unknown) => unknown,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    let connection: DatabaseConnection;
    try {
      connection = await this.inner.acquireConnection();
    } catch (err) {
      throw this.translate(err);
    }
    if (!translating.has(connection)) {
      const execute = connection.executeQuery.bind(connection);
      connection.executeQuery = <R>(query: CompiledQuery) =>
        execute<R>(query).catch((err: unknown) => {
          throw this.translate(err);
        });
      translating.add(connection);
    }
    return connection;
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }

  savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.inner.savepoint!(connection, name, compile);
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.inner.rollbackToSavepoint!(connection, name, compile);
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.inner.releaseSavepoint!(connection, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(connection);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
