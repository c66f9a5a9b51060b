import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { isHyphaeError } from '../core/errors.js';
import { encodeVector } from '../embed/embed-wire.js';
import type { MicroBatcher } from './micro-batcher.js';
import type { WorkerMetrics } from './worker-metrics.js';

/** As OpenAI's own limit on texts per request. */
export const OPENAI_MAX_INPUTS = 2048;

// Not strict: OpenAI clients send fields we have no use for (`user`); they are ignored.
const embeddingsBodySchema = z.object({
  input: z.union([z.string(), z.array(z.string()).min(1).max(OPENAI_MAX_INPUTS)]),
  model: z.string().optional(),
  encoding_format: z.enum(['float', 'base64']).optional(),
  dimensions: z.int().positive().optional(),
});

export interface OpenAiEmbeddingsRouteOptions {
  readonly modelId: string;
  readonly dimension: number;
  readonly batcher: MicroBatcher;
  readonly metrics: WorkerMetrics;
  readonly isDraining: () => boolean;
}

interface OpenAiError {
  readonly error: { readonly message: string; readonly type: string; readonly param: string | null; readonly code: string | null };
}

function openAiError(message: string, type: string, param: string | null, code: string | null): OpenAiError {
  return { error: { message, type, param, code } };
}

/** Whitespace-separated words: an approximation of tokens, since the models served here have no shared tokenizer. */
function countTokens(texts: readonly string[]): number {
  return texts.reduce((sum, text) => sum + (text.match(/\S+/g)?.length ?? 0), 0);
}

/** `POST /v1/embeddings`, compatible with OpenAI's API (and so with every client written for it). */
export function registerOpenAiEmbeddingsRoute(app: FastifyInstance, options: OpenAiEmbeddingsRouteOptions): void {
  app.post('/v1/embeddings', async (request, reply) => {
    const started = performance.now();
    const seconds = (): number => (performance.now() - started) / 1000;
    if (options.isDraining()) {
      options.metrics.observeRequest('http', 'error', 0, seconds());
      return reply.code(503).header('retry-after', '1').send(openAiError('the worker is shutting down', 'server_error', null, 'unavailable'));
    }
    const body = embeddingsBodySchema.safeParse(request.body);
    if (!body.success) {
      options.metrics.observeRequest('http', 'invalid', 0, seconds());
      const issue = body.error.issues[0];
      const param = issue ? issue.path.join('.') || null : null;
      return reply.code(400).send(openAiError(body.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '), 'invalid_request_error', param, 'invalid_value'));
    }
    const { input, model, encoding_format: encoding, dimensions } = body.data;
    if (model !== undefined && model !== options.modelId) {
      options.metrics.observeRequest('http', 'invalid', 0, seconds());
      return reply.code(404).send(openAiError(`this worker serves '${options.modelId}', not '${model}'`, 'invalid_request_error', 'model', 'model_not_found'));
    }
    if (dimensions !== undefined && dimensions !== options.dimension) {
      options.metrics.observeRequest('http', 'invalid', 0, seconds());
      return reply.code(400).send(openAiError(`'${options.modelId}' has ${options.dimension} dimensions`, 'invalid_request_error', 'dimensions', 'invalid_value'));
    }
    const texts = typeof input === 'string' ? [input] : input;
    try {
      const vectors = await options.batcher.submit(texts);
      options.metrics.observeRequest('http', 'ok', texts.length, seconds());
      const tokens = countTokens(texts);
      return {
        object: 'list',
        data: vectors.map((vector, index) => ({
          object: 'embedding',
          index,
          embedding: encoding === 'base64' ? encodeVector(vector) : Array.from(vector),
        })),
        model: options.modelId,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      };
    } catch (error) {
      options.metrics.observeRequest('http', 'error', texts.length, seconds());
      const unavailable = isHyphaeError(error) && error.code === 'UNAVAILABLE';
      return reply.code(unavailable ? 503 : 500).send(openAiError(unavailable ? error.message : 'embedding failed', 'server_error', null, null));
    }
  });
}
