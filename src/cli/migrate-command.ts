/** `hyphae migrate`: applies pending migrations (under the migration advisory lock) and exits. */
import { openMigratedDatabase } from '../app/index.js';
import { loadProcessConfig } from '../core/config.js';
import { configFlags, parseCommand } from './args.js';

export async function runMigrateCommand(argv: readonly string[]): Promise<void> {
  const parsed = parseCommand(argv);
  if (parsed.values.help === true) {
    process.stdout.write('Usage: hyphae migrate [--data-dir D] [--database-url URL] [--embedder E]\n');
    return;
  }
  const config = loadProcessConfig(configFlags(parsed.values));
  const database = await openMigratedDatabase(config, 'hyphae migrate');
  try {
    const { applied, identity } = database.migration;
    const summary = applied.length === 0 ? 'schema is current' : `applied ${applied.map((m) => `${m.version} ${m.name}`).join(', ')}`;
    process.stderr.write(`hyphae migrate: ${summary} (embedding model ${identity.modelId}, ${identity.dimension}-d)\n`);
  } finally {
    await database.close();
  }
}
