import { ConflictError, HyphaeError, UnavailableError } from '../core/errors.js';
import type { HyphaeErrorOptions, UnavailableErrorOptions } from '../core/errors.js';

/** Who holds a data-folder lock, as written in its lock file. */
export interface DataDirLockHolder {
  readonly pid: number;
  readonly hostname: string;
  readonly startedAt: string;
  readonly command: string;
}

/** A PGlite data folder is already open in a live process (PGlite must never be opened twice). */
export class DataDirLockedError extends ConflictError {
  readonly dataDir: string;
  readonly holder: DataDirLockHolder;
  constructor(dataDir: string, holder: DataDirLockHolder, options: HyphaeErrorOptions = {}) {
    const where = holder.hostname === '' ? '' : ` on ${holder.hostname}`;
    super(
      `data folder ${dataDir} is in use by pid ${holder.pid}${where} (${holder.command}, started ${holder.startedAt}); ` +
        'stop it or use --remote to share it',
      { ...options, details: { ...options.details, data_dir: dataDir, holder } },
    );
    this.dataDir = dataDir;
    this.holder = holder;
  }
}

/** The database was created for another embedder; mixing vectors of two models would corrupt recall. */
export class EmbeddingModelMismatchError extends ConflictError {
  constructor(
    recorded: { readonly modelId: string | undefined; readonly dimension: number },
    configured: { readonly modelId: string; readonly dimension: number },
    options: HyphaeErrorOptions = {},
  ) {
    const recordedModel = recorded.modelId ?? 'an unrecorded model';
    super(
      `this database was created with model ${recordedModel} (${recorded.dimension}-d) but this process uses ` +
        `${configured.modelId} (${configured.dimension}-d); start with the --embedder (and HYPHAE_EMBED_MODEL) it was created with, or move it ` +
        'to this embedder with `hyphae reembed --embedder E` (same data folder or database URL; stop the servers first)',
      {
        ...options,
        details: {
          ...options.details,
          recorded_model: recorded.modelId ?? null,
          recorded_dimension: recorded.dimension,
          configured_model: configured.modelId,
          configured_dimension: configured.dimension,
        },
      },
    );
  }
}

/** A migration on disk no longer matches what was applied, or the database is newer than this code. */
export class MigrationError extends HyphaeError {
  constructor(message: string, options: HyphaeErrorOptions = {}) {
    super('INTERNAL', message, options);
  }
}

/** The database cannot be reached (connection refused, dropped, shutting down). */
export class DatabaseUnavailableError extends UnavailableError {
  constructor(message = 'database unavailable', options: UnavailableErrorOptions = {}) {
    super(message, options);
  }
}

/** A vector that pgvector would reject or that cannot be parsed back. */
export class VectorFormatError extends HyphaeError {
  constructor(message: string, options: HyphaeErrorOptions = {}) {
    super('INTERNAL', message, options);
  }
}

/** The SQLSTATE of a database error from either driver (both expose `code`); undefined for Node system errors. */
export function sqlStateOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || 'syscall' in error) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** True for a unique-constraint violation (SQLSTATE 23505), optionally of one named constraint. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (sqlStateOf(error) !== '23505') return false;
  if (constraint === undefined) return true;
  return (error as { constraint?: unknown }).constraint === constraint;
}
