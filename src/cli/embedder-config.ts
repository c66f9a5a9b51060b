/** The embedder a process builds from its configuration (server, migrate/keys, worker). */
import type { HyphaeConfig } from '../core/config.js';
import type { EmbedderConfig } from '../embed/create-embedder.js';

export function embedderConfigFrom(config: HyphaeConfig): EmbedderConfig {
  return {
    kind: config.embedder,
    ...(config.embedUrl === undefined ? {} : { url: config.embedUrl }),
    ...(config.embedModel === undefined ? {} : { model: config.embedModel }),
    ...(config.embedApiKey === undefined ? {} : { apiKey: config.embedApiKey }),
    ...(config.natsUrl === undefined ? {} : { natsUrl: config.natsUrl }),
    ...(config.embedDimension === undefined ? {} : { dimension: config.embedDimension }),
    // The local fallback must produce the workers' model: hash-* models fall back to hash, the rest to use-lite.
    ...(config.embedder === 'nats' && config.embedLocalFallback
      ? { fallback: config.embedModel?.startsWith('hash') === true ? ('hash' as const) : ('use-lite' as const) }
      : {}),
  };
}
