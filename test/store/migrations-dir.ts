/** The product's migrations, and copies of them without one file: a database as it was before that migration. */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../src/store/migrations', import.meta.url));

export interface MigrationsCopy {
  readonly dir: string;
  remove(): Promise<void>;
}

/** The migrations without `file` (e.g. `0014_tenant_term_keys.sql`), in a temporary folder. */
export async function migrationsWithout(file: string): Promise<MigrationsCopy> {
  const dir = await mkdtemp(join(tmpdir(), `hyphae-without-${file.slice(0, 4)}-`));
  await cp(MIGRATIONS_DIR, dir, { recursive: true, filter: (source) => basename(source) !== file });
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
