/**
 * `hyphae export [--tenant T] [--project P] [--out FILE] [--with-vectors]`: the configured database
 * (every tenant unless --tenant) as export-format JSON Lines (docs/export-format.md) on stdout, or
 * in FILE — written beside it and renamed into place once complete, so FILE is never a partial
 * export. Progress goes to stderr on a terminal.
 */
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { exportConfiguredDatabase } from '../app/index.js';
import { loadProcessConfig } from '../core/config.js';
import { InvalidArgumentError } from '../core/errors.js';
import { exportTenantInputSchema, createKeyInputSchema } from '../core/schemas.js';
import { configFlags, parseCommand } from './args.js';
import { progressLine } from './progress-line.js';

const USAGE = `Usage: hyphae export [--tenant T] [--project P] [--out FILE] [--with-vectors] [--data-dir D | --database-url URL]
Writes the database (or tenant T, or project P) as JSON Lines: a format version line first, then
tenants, key hashes, scenes, sessions, cells with their version chains and corroborations, beacons,
inbox positions and waiting diffs, then an end line. --with-vectors adds each cell's and beacon's
vector. Import it with hyphae import. Stop writers first for a frozen copy.
`;

export async function runExportCommand(argv: readonly string[]): Promise<void> {
  const parsed = parseCommand(argv, {
    tenant: { type: 'string' },
    project: { type: 'string' },
    out: { type: 'string' },
    'with-vectors': { type: 'boolean' },
  });
  if (parsed.values.help === true) {
    process.stdout.write(USAGE);
    return;
  }
  if (parsed.positionals.length > 0) throw new InvalidArgumentError(`unexpected argument "${parsed.positionals[0]}"\n${USAGE}`);
  const tenant = optionValue(parsed.values.tenant, createKeyInputSchema.shape.tenant, '--tenant');
  const project = optionValue(parsed.values.project, exportTenantInputSchema.shape.project, '--project');
  const out = typeof parsed.values.out === 'string' ? parsed.values.out : undefined;
  const config = loadProcessConfig(configFlags(parsed.values));
  const progress = progressLine(process.stderr, 'hyphae export');
  const target = out === undefined ? { stream: process.stdout, done: async (): Promise<void> => undefined, abandon: async (): Promise<void> => undefined } : fileTarget(out);
  try {
    await exportConfiguredDatabase(config, {
      ...(tenant === undefined ? {} : { tenant }),
      ...(project === undefined ? {} : { project }),
      withVectors: parsed.values['with-vectors'] === true,
      write: (chunk) => writeChunk(target.stream, chunk),
      onProgress: (records) => progress.update(`${records} records`),
    });
    await target.done();
  } catch (error) {
    await target.abandon();
    throw error;
  } finally {
    progress.end();
  }
  if (out !== undefined) process.stderr.write(`hyphae export: wrote ${out}\n`);
}

function optionValue(value: string | boolean | undefined, schema: { safeParse(v: unknown): { success: boolean } }, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !schema.safeParse(value).success) throw new InvalidArgumentError(`${flag} "${String(value)}" is not a valid name`);
  return value;
}

/** FILE is written as FILE.partial and renamed once complete. */
function fileTarget(path: string): { stream: Writable; done(): Promise<void>; abandon(): Promise<void> } {
  const partial = `${path}.partial`;
  const stream = createWriteStream(partial, { mode: 0o600 });
  const closed = once(stream, 'close');
  return {
    stream,
    async done(): Promise<void> {
      stream.end();
      await closed;
      await rename(partial, path);
    },
    async abandon(): Promise<void> {
      stream.destroy();
      await rm(partial, { force: true });
    },
  };
}

async function writeChunk(stream: Writable, chunk: string): Promise<void> {
  if (!stream.write(chunk)) await once(stream, 'drain');
}
