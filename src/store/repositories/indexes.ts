/** An index a list needs: equality columns first, then the sort column and id. */
export interface IndexSpec {
  table: string;
  columns: string[];
}
