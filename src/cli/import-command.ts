/**
 * `hyphae import FILE|- [--format hyphae|server-memory|mem0] [--tenant T] [--agent A] [--project P]`:
 * checks the whole file (standard input is spooled to a private temporary file first), then writes
 * it in one transaction into the configured database; a refused file leaves it unchanged, and
 * importing the same file again adds nothing. Prints what it added as JSON on stdout.
 */
import { resolve } from 'node:path';
import { importIntoConfiguredDatabase } from '../app/index.js';
import { loadProcessConfig } from '../core/config.js';
import { InvalidArgumentError } from '../core/errors.js';
import { createKeyInputSchema, importTenantInputSchema } from '../core/schemas.js';
import type { ImportSummary } from '../core/export-format.js';
import { dumpReaderFor, fileDumpSource, spoolDumpSource, type DumpSource, type ImportFormat } from '../service/index.js';
import { configFlags, parseCommand } from './args.js';
import { progressLine } from './progress-line.js';

const USAGE = `Usage: hyphae import FILE|- [--format hyphae|server-memory|mem0] [--tenant T] [--agent A] [--project P]
                     [--data-dir D | --database-url URL] [--embedder E]
Imports a hyphae export (default), the reference MCP memory server's JSONL file (server-memory) or
mem0's memories as JSON (mem0) from FILE, or standard input with "-". The whole file is checked
before anything is written, then written in one transaction; running it twice changes nothing.
--tenant T: refuse a hyphae file naming any other tenant. server-memory and mem0 files carry no
Hyphae identity: --tenant and --agent say whose cells they become, --project where (default "default").
Texts are embedded again unless the file carries vectors of this database's embedder.
`;

export async function runImportCommand(argv: readonly string[]): Promise<void> {
  const parsed = parseCommand(argv, {
    format: { type: 'string' },
    tenant: { type: 'string' },
    agent: { type: 'string' },
    project: { type: 'string' },
  });
  if (parsed.values.help === true) {
    process.stdout.write(USAGE);
    return;
  }
  const [path, ...extra] = parsed.positionals;
  if (path === undefined || extra.length > 0) throw new InvalidArgumentError(`import takes one FILE, or - for standard input\n${USAGE}`);
  const format = checked(importTenantInputSchema.shape.format, parsed.values.format ?? 'hyphae', '--format') as ImportFormat;
  const tenant = optional(createKeyInputSchema.shape.tenant, parsed.values.tenant, '--tenant');
  const agent = optional(createKeyInputSchema.shape.agent, parsed.values.agent, '--agent');
  const project = optional(importTenantInputSchema.shape.project, parsed.values.project, '--project') ?? 'default';
  if (format !== 'hyphae' && (tenant === undefined || agent === undefined)) {
    throw new InvalidArgumentError(`--format ${format} needs --tenant and --agent: the file carries no Hyphae identity, so they say whose cells its memories become`);
  }
  if (format === 'hyphae' && (agent !== undefined || parsed.values.project !== undefined)) {
    throw new InvalidArgumentError('--agent and --project apply to server-memory and mem0 imports only: a hyphae export names its own agents and projects');
  }
  const config = loadProcessConfig(configFlags(parsed.values));
  const spooled = path === '-' ? await spoolDumpSource(process.stdin, { name: 'standard input', maxBytes: Number.MAX_SAFE_INTEGER }) : undefined;
  const source: DumpSource = spooled?.source ?? fileDumpSource(resolve(path), path);
  const progress = progressLine(process.stderr, 'hyphae import');
  try {
    const target = tenant !== undefined && agent !== undefined ? { tenant, agent, project, now: new Date() } : undefined;
    const summary = await importIntoConfiguredDatabase(config, dumpReaderFor(format, source, target), {
      ...(tenant === undefined ? {} : { tenant }),
      onProgress: ({ phase, records, total }) => progress.update(total === undefined ? `${phase} ${records} records` : `${phase} ${records}/${total} records`),
    });
    progress.end();
    process.stderr.write(`hyphae import: ${describe(summary)}\n`);
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  } finally {
    progress.end();
    await spooled?.dispose();
  }
}

function checked(schema: { safeParse(v: unknown): { success: boolean } }, value: unknown, flag: string): string {
  if (typeof value !== 'string' || !schema.safeParse(value).success) throw new InvalidArgumentError(`${flag} "${String(value)}" is not valid\n${USAGE}`);
  return value;
}

function optional(schema: { safeParse(v: unknown): { success: boolean } }, value: unknown, flag: string): string | undefined {
  return value === undefined ? undefined : checked(schema, value, flag);
}

function describe(summary: ImportSummary): string {
  const parts = Object.entries(summary.records)
    .filter(([, counts]) => counts.in_file > 0)
    .map(([type, counts]) => `${type} ${counts.added}/${counts.in_file}`);
  const vectors = summary.vectors_from_file ? 'vectors from the file' : 'texts embedded by this database\'s embedder';
  return `added ${parts.length === 0 ? 'nothing (the file holds no records)' : parts.join(', ')} (added/in file); ${vectors}`;
}
