/**
 * Where REST import bodies wait while they are checked and written: private temporary files under
 * one folder, bounded per tenant and for the whole process (docs/export-format.md, "Over REST").
 * A body that declares its length reserves it before a byte is read, so a body that cannot fit is
 * refused at once; one that does not declare it reserves as it arrives. Every file is removed when
 * its import ends, when its upload fails or is aborted, and when the process closes.
 */
import { tmpdir } from 'node:os';
import type { Readable } from 'node:stream';
import { RateLimitedError, TooLargeError } from '../../core/errors.js';
import { spoolDumpSource, type SpooledDumpSource } from './dump-source.js';

/** A request body to import, not yet read. */
export interface ImportBody {
  /** What messages call it ("the request body"). */
  readonly name: string;
  readonly stream: Readable;
  /** The length the request declares (Content-Length), if it does. */
  readonly declaredBytes: number | undefined;
}

export interface ImportSpoolLimits {
  /** The folder the temporary files go in; undefined: the system's temporary folder. */
  readonly dir: string | undefined;
  /** The most one import may carry. */
  readonly maxBytesPerImport: number;
  /** The most one tenant's imports may hold spooled at once. */
  readonly maxBytesPerTenant: number;
  /** The most every import of the process may hold spooled at once. */
  readonly maxBytesTotal: number;
}

/** How long a refused upload is told to wait: imports take seconds to minutes. */
const RETRY_AFTER_SECONDS = 30;

/** RATE_LIMITED because other imports hold the spool: retry when they are done. */
export class ImportSpoolFullError extends RateLimitedError {
  constructor(scope: 'tenant' | 'process', limitBytes: number) {
    super(RETRY_AFTER_SECONDS, { details: { limit: scope === 'tenant' ? 'import_spool_per_tenant' : 'import_spool_total', limit_bytes: limitBytes } });
    this.message = `imports ${scope === 'tenant' ? "of this tenant" : 'on this server'} are already spooling ${limitBytes} bytes, the most allowed at once; retry after ${RETRY_AFTER_SECONDS}s`;
  }
}

export function isImportBody(value: unknown): value is ImportBody {
  return typeof value === 'object' && value !== null && 'stream' in value && 'declaredBytes' in value;
}

export class ImportSpool {
  private total = 0;
  private readonly perTenant = new Map<string, number>();
  private readonly uploads = new Set<Readable>();
  private readonly files = new Set<SpooledDumpSource>();
  private closed = false;

  constructor(private readonly limits: ImportSpoolLimits) {}

  /** Bytes spooled now (per tenant, and in total), for tests and metrics. */
  held(tenant?: string): number {
    return tenant === undefined ? this.total : (this.perTenant.get(tenant) ?? 0);
  }

  /**
   * Spools `body` for `tenant`: TOO_LARGE when it is (or declares to be) over the per-import limit,
   * RATE_LIMITED when the tenant's or the process's bound would be passed — both before reading
   * when the length is declared. The caller disposes of the result.
   */
  async spool(tenant: string, body: ImportBody): Promise<SpooledDumpSource> {
    const maxBytes = Math.min(this.limits.maxBytesPerImport, this.limits.maxBytesPerTenant);
    if (body.declaredBytes !== undefined && body.declaredBytes > maxBytes) throw new TooLargeError(body.name, maxBytes, body.declaredBytes);
    let reserved = 0;
    const reserve = (bytes: number): void => {
      if (bytes <= reserved) return;
      this.take(tenant, bytes - reserved);
      reserved = bytes;
    };
    const release = (): void => {
      this.give(tenant, reserved);
      reserved = 0;
    };
    reserve(body.declaredBytes ?? 0);
    this.uploads.add(body.stream);
    let spooled: SpooledDumpSource;
    try {
      if (this.closed) throw new ImportSpoolFullError('process', this.limits.maxBytesTotal);
      spooled = await spoolDumpSource(body.stream, { name: body.name, maxBytes, dir: this.limits.dir ?? tmpdir(), onBytes: reserve });
    } catch (error) {
      release();
      throw error;
    } finally {
      this.uploads.delete(body.stream);
    }
    const held: SpooledDumpSource = {
      source: spooled.source,
      bytes: spooled.bytes,
      dispose: async () => {
        if (!this.files.delete(held)) return;
        release();
        await spooled.dispose();
      },
    };
    this.files.add(held);
    // Closed while the last chunk was written: nothing may stay behind.
    if (this.closed) {
      await held.dispose();
      throw new ImportSpoolFullError('process', this.limits.maxBytesTotal);
    }
    return held;
  }

  /** Stops every upload under way and removes every spooled file (the process is closing). */
  async close(): Promise<void> {
    this.closed = true;
    for (const upload of this.uploads) upload.destroy();
    await Promise.all([...this.files].map((file) => file.dispose()));
  }

  private take(tenant: string, bytes: number): void {
    const tenantHeld = this.perTenant.get(tenant) ?? 0;
    if (tenantHeld + bytes > this.limits.maxBytesPerTenant) throw new ImportSpoolFullError('tenant', this.limits.maxBytesPerTenant);
    if (this.total + bytes > this.limits.maxBytesTotal) throw new ImportSpoolFullError('process', this.limits.maxBytesTotal);
    this.perTenant.set(tenant, tenantHeld + bytes);
    this.total += bytes;
  }

  private give(tenant: string, bytes: number): void {
    if (bytes === 0) return;
    const left = (this.perTenant.get(tenant) ?? 0) - bytes;
    if (left <= 0) this.perTenant.delete(tenant);
    else this.perTenant.set(tenant, left);
    this.total -= bytes;
  }
}
