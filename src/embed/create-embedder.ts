import { InvalidArgumentError } from '../core/errors.js';
import type { Embedder, EmbedderKind } from './embedder.js';
import { HashEmbedder } from './hash-embedder.js';
import { UseLiteEmbedder } from './use-lite-embedder.js';

export interface EmbedderConfig {
  readonly kind: EmbedderKind;
  /** `openai`: base URL of an OpenAI-compatible API (e.g. http://worker:8080/v1). */
  readonly url?: string;
  /** `openai`: the model name sent in requests; `nats`: the model id the workers serve. */
  readonly model?: string;
  /** `openai`: bearer token; when absent, OPENAI_API_KEY / HYPHAE_EMBED_API_KEY from the environment. */
  readonly apiKey?: string;
  /** `nats`: the NATS server URL(s) the workers listen on. */
  readonly natsUrl?: string;
  /** Vector length expected from a remote embedder (checked on every reply); `hash`: its dimension. */
  readonly dimension?: number;
  /** Per-request timeout of a remote embedder, in ms. */
  readonly timeoutMs?: number;
  /** `nats`: embed locally with this kind when no worker answers (must yield the same model id). */
  readonly fallback?: 'use-lite' | 'hash';
}

/** Builds the embedder a deployment is configured with. */
export async function createEmbedder(config: EmbedderConfig): Promise<Embedder> {
  switch (config.kind) {
    case 'hash':
      return new HashEmbedder(config.dimension === undefined ? {} : { dimension: config.dimension });
    case 'use-lite':
      return new UseLiteEmbedder();
    case 'openai':
    case 'nats':
      return Promise.reject(
        new InvalidArgumentError(`embedder '${config.kind}' is not yet available`, [
          { path: 'kind', message: 'use hash or use-lite' },
        ]),
      );
    default:
      return Promise.reject(
        new InvalidArgumentError(`unknown embedder '${String(config.kind)}'`, [
          { path: 'kind', message: 'expected one of use-lite, hash, openai, nats' },
        ]),
      );
  }
}
