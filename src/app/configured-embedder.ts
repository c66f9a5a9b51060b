/** The one way a process builds its embedder from the configuration (serve, mcp, hook, migrate, keys, reembed, worker). */
import type { HyphaeConfig } from '../core/config.js';
import { createEmbedder, type EmbedderConfig } from '../embed/create-embedder.js';
import type { Embedder } from '../embed/embedder.js';
import { USE_LITE_MODEL_ID } from '../embed/use-lite-embedder.js';

export function embedderConfigFrom(config: HyphaeConfig): EmbedderConfig {
  const { kind, url, model, dimension, localFallback } = config.embed;
  const apiKey = config.embed.apiKey ?? config.embed.openaiApiKey;
  const { natsUrl } = config.gossip;
  return {
    kind,
    ...(url === undefined ? {} : { url }),
    ...(model === undefined ? {} : { model }),
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(natsUrl === undefined ? {} : { natsUrl }),
    ...(dimension === undefined ? {} : { dimension }),
    ...(kind === 'nats' && localFallback ? { fallback: localFallbackFor(model) } : {}),
  };
}

export interface ConfiguredEmbedderOptions {
  /** A process that only embeds, back to back (worker, reembed). */
  readonly embedsOnly?: boolean;
}

export function createConfiguredEmbedder(config: HyphaeConfig, options: ConfiguredEmbedderOptions = {}): Promise<Embedder> {
  return createEmbedder({ ...embedderConfigFrom(config), ...(options.embedsOnly === true ? { embedsOnly: true } : {}) });
}

/** The local fallback must produce the workers' model: hash-* falls back to hash, use-lite-512 to use-lite, the rest (the default) to minilm. */
function localFallbackFor(model: string | undefined): 'minilm' | 'use-lite' | 'hash' {
  if (model?.startsWith('hash') === true) return 'hash';
  if (model === USE_LITE_MODEL_ID) return 'use-lite';
  return 'minilm';
}
