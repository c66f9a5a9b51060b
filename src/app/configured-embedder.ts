/** The one way a process builds its embedder from the configuration (serve, mcp, hook, migrate, keys, reembed, worker). */
import type { HyphaeConfig } from '../core/config.js';
import { createEmbedder, type EmbedderConfig } from '../embed/create-embedder.js';
import type { Embedder } from '../embed/embedder.js';
import { MINILM_INT8_MODEL_ID } from '../embed/minilm-embedder.js';
import { USE_LITE_MODEL_ID } from '../embed/use-lite-embedder.js';

/**
 * The embedder's settings; `recordedModelId` is the model the database records, if any: with
 * HYPHAE_EMBED_MODEL unset, a database made with minilm's int8 model keeps it in process, so an
 * upgrade to the fp32 default refuses nothing (`hyphae reembed` moves it to fp32). Not over NATS:
 * the workers could not know, so a server there is refused at start, naming the setting, rather
 * than asking workers for a model they do not serve.
 */
export function embedderConfigFrom(config: HyphaeConfig, recordedModelId?: string): EmbedderConfig {
  const { kind, url, dimension, localFallback } = config.embed;
  const keepsInt8 = config.embed.model === undefined && kind === 'minilm' && recordedModelId === MINILM_INT8_MODEL_ID;
  const model = keepsInt8 ? MINILM_INT8_MODEL_ID : config.embed.model;
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
  /** The model id the database records (see embedderConfigFrom). */
  readonly recordedModelId?: string;
}

export function createConfiguredEmbedder(config: HyphaeConfig, options: ConfiguredEmbedderOptions = {}): Promise<Embedder> {
  return createEmbedder({ ...embedderConfigFrom(config, options.recordedModelId), ...(options.embedsOnly === true ? { embedsOnly: true } : {}) });
}

/** The local fallback must produce the workers' model: hash-* falls back to hash, use-lite-512 to use-lite, the rest (the default) to minilm. */
function localFallbackFor(model: string | undefined): 'minilm' | 'use-lite' | 'hash' {
  if (model?.startsWith('hash') === true) return 'hash';
  if (model === USE_LITE_MODEL_ID) return 'use-lite';
  return 'minilm';
}
