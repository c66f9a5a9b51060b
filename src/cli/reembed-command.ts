/**
 * `hyphae reembed [--embedder E]`: moves the configured database (embedded folder or PostgreSQL)
 * to the embedder E, printing progress; Ctrl-C stops between batches and a later run resumes.
 */
import { createConfiguredEmbedder, openConfiguredDatabase } from '../app/index.js';
import { InvalidArgumentError } from '../core/errors.js';
import { loadProcessConfig } from '../core/config.js';
import { reembedDatabase, REEMBED_DEFAULT_BATCH_SIZE, type ReembedProgress } from '../service/index.js';
import { configFlags, parseCommand } from './args.js';

const USAGE = `Usage: hyphae reembed [--embedder E] [--data-dir D | --database-url URL] [--batch-size N]
Re-embeds every cell and beacon with embedder E (default: HYPHAE_EMBEDDER, else minilm), swaps the
vector columns to its dimension, rebuilds the indexes and records E. Stop the servers first; an
interrupted run resumes where it stopped.
`;

export async function runReembedCommand(argv: readonly string[]): Promise<void> {
  const parsed = parseCommand(argv, { 'batch-size': { type: 'string' } });
  if (parsed.values.help === true) {
    process.stdout.write(USAGE);
    return;
  }
  if (parsed.positionals.length > 0) throw new InvalidArgumentError(`unexpected argument "${parsed.positionals[0]}"\n${USAGE}`);
  const batchText = parsed.values['batch-size'];
  const batchSize = typeof batchText === 'string' ? Number(batchText) : REEMBED_DEFAULT_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) throw new InvalidArgumentError(`--batch-size must be an integer from 1 to 10000, got "${String(batchText)}"`);
  const config = loadProcessConfig(configFlags(parsed.values));
  const embedder = await createConfiguredEmbedder(config, { embedsOnly: true });
  let stopRequested = false;
  const onSignal = (): void => {
    stopRequested = true;
    process.stderr.write('\nhyphae reembed: stopping after this batch (run it again to resume)\n');
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const db = await openConfiguredDatabase(config, 'hyphae reembed');
    try {
      const progress = progressPrinter(process.stderr);
      const outcome = await reembedDatabase(db, embedder, {
        batchSize,
        shouldStop: () => stopRequested,
        onStart: ({ from, to, resumed, total }) =>
          process.stderr.write(
            `hyphae reembed: ${resumed ? 'resuming' : 'moving'} ${total} cells and beacons from ${from.modelId} (${from.dimension}-d) to ${to.modelId} (${to.dimension}-d)\n`,
          ),
        onProgress: progress.update,
      });
      progress.end();
      if (outcome.status === 'already-current') {
        process.stderr.write(`hyphae reembed: the database already uses ${outcome.identity.modelId} (${outcome.identity.dimension}-d); nothing to do\n`);
      } else if (outcome.status === 'stopped') {
        process.stderr.write(`hyphae reembed: stopped at ${outcome.done}/${outcome.total}; the database still uses its old embedder — run hyphae reembed again to resume\n`);
        process.exitCode = 130;
      } else {
        process.stderr.write(`hyphae reembed: done, ${outcome.rows} rows; the database now uses ${outcome.to.modelId} (${outcome.to.dimension}-d)\n`);
      }
    } finally {
      await db.close();
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await embedder.close();
  }
}

/** A redrawn bar on a terminal; otherwise a plain line at each further 10% and at each tenant's start. */
function progressPrinter(stream: NodeJS.WriteStream): { update: (p: ReembedProgress) => void; end: () => void } {
  const started = performance.now();
  let lastDecile = -1;
  let lastTenant = '';
  let drawn = false;
  return {
    update: ({ done, total, tenantId, table }: ReembedProgress): void => {
      const share = total === 0 ? 1 : done / total;
      const rate = done / Math.max((performance.now() - started) / 1000, 1e-3);
      const label = `${done}/${total} (${Math.floor(share * 100)}%) tenant ${tenantId} ${table}, ${Math.round(rate)} rows/s`;
      if (stream.isTTY) {
        const width = 30;
        const filled = Math.round(share * width);
        stream.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${label}\u001b[K`);
        drawn = true;
        return;
      }
      const decile = Math.floor(share * 10);
      if (decile !== lastDecile || tenantId !== lastTenant) stream.write(`hyphae reembed: ${label}\n`);
      lastDecile = decile;
      lastTenant = tenantId;
    },
    end: (): void => {
      if (drawn) stream.write('\n');
    },
  };
}
