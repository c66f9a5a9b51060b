// Prepared once per test run; the store layer fills this in (template PGlite data dir).
export async function setup(): Promise<void> {}
