/** One row of `table` read on its primary key: a subquery behind OFFSET 0 stating nothing else, so no statistics can lead the planner to another index. */
export function byKey(table: string, key: string): string {
  return `(SELECT * FROM ${table} WHERE ${table}.node_id = ${key} OFFSET 0)`;
}
