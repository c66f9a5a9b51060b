/**
 * The issuer's metadata, discovered once on first need and then kept for the life of the process.
 * A failed discovery is remembered for a short while, so a down authorization server costs one
 * attempt per interval, not one per request; API keys keep working meanwhile.
 */
import { UnavailableError } from '../../core/errors.js';
import { discoverIssuerMetadata, type IssuerMetadata, type MetadataFetchOptions } from './issuer-metadata.js';

export const DISCOVERY_RETRY_MS = 10_000;

export interface IssuerMetadataSourceOptions extends MetadataFetchOptions {
  readonly retryAfterMs?: number;
  readonly now?: () => number;
}

export class IssuerMetadataSource {
  private discovered: Promise<IssuerMetadata> | undefined;
  private failedAt = Number.NEGATIVE_INFINITY;

  constructor(
    readonly issuer: string,
    private readonly options: IssuerMetadataSourceOptions = {},
  ) {}

  get(): Promise<IssuerMetadata> {
    const now = (this.options.now ?? Date.now)();
    const retryAfterMs = this.options.retryAfterMs ?? DISCOVERY_RETRY_MS;
    if (this.discovered === undefined) {
      if (now - this.failedAt < retryAfterMs) {
        const retryAfterSeconds = Math.ceil((this.failedAt + retryAfterMs - now) / 1000);
        return Promise.reject(new UnavailableError('the authorization server metadata is not available yet', { retryAfterSeconds }));
      }
      this.discovered = discoverIssuerMetadata(this.issuer, this.options).catch((error: unknown) => {
        this.discovered = undefined;
        this.failedAt = (this.options.now ?? Date.now)();
        throw error;
      });
    }
    return this.discovered;
  }
}
