/** Minimal, strict argument parsing for the `hyphae` command (node:util parseArgs). */
import { parseArgs } from 'node:util';
import { InvalidArgumentError } from '../core/errors.js';
import type { ConfigFlags } from '../core/config.js';

export const COMMON_OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  'nats-url': { type: 'string' },
  embedder: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `hyphae serve`'s own: the gRPC port (HYPHAE_GRPC_PORT; 0 turns gRPC off). */
export const SERVE_OPTIONS = { 'grpc-port': { type: 'string' } } as const;

export interface ParsedCommand {
  readonly values: Record<string, string | boolean | undefined>;
  readonly positionals: readonly string[];
}

type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string }>;

export function parseCommand(argv: readonly string[], extra: OptionSpec = {}): ParsedCommand {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options: { ...COMMON_OPTIONS, ...extra },
      allowPositionals: true,
      strict: true,
    });
    return { values: values as Record<string, string | boolean | undefined>, positionals };
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
}

export function configFlags(values: ParsedCommand['values']): ConfigFlags {
  const str = (key: string): string | undefined => {
    const value = values[key];
    return typeof value === 'string' ? value : undefined;
  };
  return {
    host: str('host'),
    port: str('port'),
    grpcPort: str('grpc-port'),
    dataDir: str('data-dir'),
    databaseUrl: str('database-url'),
    natsUrl: str('nats-url'),
    embedder: str('embedder'),
  };
}
