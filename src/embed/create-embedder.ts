import { InvalidArgumentError } from '../core/errors.js';
import type { Embedder, EmbedderKind } from './embedder.js';
import { HashEmbedder } from './hash-embedder.js';
import { knownDimension } from './known-dimensions.js';
import { MINILM_INT8_MODEL_ID, MINILM_MODEL_ID, miniLmPrecisionOf, MiniLmEmbedder } from './minilm-embedder.js';
import { NatsEmbedder } from './nats-embedder.js';
import { OpenAiEmbedder } from './openai-embedder.js';
import { UseLiteEmbedder } from './use-lite-embedder.js';

export interface EmbedderConfig {
  readonly kind: EmbedderKind;
  /** `openai`: base URL of an OpenAI-compatible API (e.g. http://worker:8080/v1). */
  readonly url?: string;
  /** `openai`: the model name sent in requests; `nats`: the model id the workers serve; `minilm`: its model id (fp32 or int8; default fp32). */
  readonly model?: string;
  /** `openai`: bearer token (the configuration's HYPHAE_EMBED_API_KEY, else OPENAI_API_KEY); absent: none sent. */
  readonly apiKey?: string;
  /** `nats`: the NATS server URL(s) the workers listen on. */
  readonly natsUrl?: string;
  /** Vector length expected from a remote embedder (checked on every reply); `hash`: its dimension. */
  readonly dimension?: number;
  /** Per-request timeout of a remote embedder, in ms. */
  readonly timeoutMs?: number;
  /** `nats`: embed locally with this kind when no worker answers (must yield the same model id). */
  readonly fallback?: 'minilm' | 'use-lite' | 'hash';
  /** Remote embedders: attempts per request, the first included. */
  readonly attempts?: number;
  /** A process that only embeds, back to back (worker, reembed): `minilm` keeps its threads spinning between runs. */
  readonly embedsOnly?: boolean;
}

export const NATS_EMBED_DEFAULT_MODEL = MINILM_MODEL_ID;

/** Builds the embedder a deployment is configured with; remote kinds fail fast on incomplete settings. */
export async function createEmbedder(config: EmbedderConfig): Promise<Embedder> {
  switch (config.kind) {
    case 'hash':
      return new HashEmbedder(config.dimension === undefined ? {} : { dimension: config.dimension });
    case 'minilm': {
      const precision = miniLmPrecisionOf(config.model ?? MINILM_MODEL_ID);
      if (precision === undefined) throw invalid('model', `the minilm embedder runs ${MINILM_MODEL_ID} (fp32) or ${MINILM_INT8_MODEL_ID}, not '${String(config.model)}'`);
      return new MiniLmEmbedder({ precision, ...(config.embedsOnly === true ? { spinWhenIdle: true } : {}) });
    }
    case 'use-lite':
      return new UseLiteEmbedder();
    case 'openai': {
      if (!config.url) throw invalid('url', 'the openai embedder needs the endpoint URL (HYPHAE_EMBED_URL), e.g. https://api.openai.com/v1');
      if (!config.model) throw invalid('model', 'the openai embedder needs the model name (HYPHAE_EMBED_MODEL), e.g. text-embedding-3-small');
      const { apiKey } = config;
      return new OpenAiEmbedder({
        url: config.url,
        model: config.model,
        dimension: dimensionOf(config.model, config.dimension),
        ...(apiKey ? { apiKey } : {}),
        ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
        ...(config.attempts === undefined ? {} : { attempts: config.attempts }),
      });
    }
    case 'nats': {
      const servers = config.natsUrl ?? config.url;
      if (!servers) throw invalid('natsUrl', 'the nats embedder needs the NATS URL of the workers (HYPHAE_NATS_URL)');
      const modelId = config.model ?? NATS_EMBED_DEFAULT_MODEL;
      const dimension = dimensionOf(modelId, config.dimension);
      const fallback = config.fallback ? await createEmbedder({ kind: config.fallback, dimension, ...(config.fallback === 'minilm' ? { model: modelId } : {}) }) : undefined;
      return NatsEmbedder.connect({
        servers,
        modelId,
        dimension,
        ...(fallback ? { fallback } : {}),
        ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
        ...(config.attempts === undefined ? {} : { attempts: config.attempts }),
      });
    }
    default:
      throw invalid('kind', `unknown embedder '${String(config.kind)}'; expected one of minilm, use-lite, hash, openai, nats`);
  }
}

function dimensionOf(modelId: string, configured: number | undefined): number {
  const known = knownDimension(modelId);
  if (configured !== undefined) {
    if (!Number.isInteger(configured) || configured < 1) throw invalid('dimension', `must be a positive integer, got ${String(configured)}`);
    if (known !== undefined && known !== configured) throw invalid('dimension', `'${modelId}' has ${known} dimensions, not ${configured}`);
    return configured;
  }
  if (known === undefined) throw invalid('dimension', `the dimension of '${modelId}' is not known here; configure it`);
  return known;
}

function invalid(path: string, message: string): InvalidArgumentError {
  return new InvalidArgumentError(message, [{ path, message }]);
}
