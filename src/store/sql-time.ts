/**
 * Timestamps leave SQL as RFC 3339 text with microseconds, so both drivers return the same
 * string and no precision is lost to a JS Date (pull_diffs cursors depend on it).
 */
export function isoText(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

