/**
 * An index a list needs. Plain: equality columns first, then the sort column
 * and id. `search`: the columns a list's free-text `q` matches, indexed for
 * substring search (SQLite FTS5 trigrams, PostgreSQL pg_trgm).
 */
export interface IndexSpec {
  table: string;
  columns: string[];
  search?: boolean;
}
