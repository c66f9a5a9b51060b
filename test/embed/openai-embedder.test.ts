import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConfiguredEmbedder } from '../../src/app/configured-embedder.js';
import { loadConfig } from '../../src/core/config.js';
import { InvalidArgumentError, UnavailableError } from '../../src/core/errors.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import { OpenAiEmbedder } from '../../src/embed/openai-embedder.js';
import { runWorker } from '../../src/worker/run-worker.js';
import type { RunningWorker } from '../../src/worker/run-worker.js';

/**
 * What the proxy does with the next request: forward it to the worker, forward it as an endpoint
 * that knows only float arrays would answer it, or answer with a canned failure.
 */
type Step =
  | { readonly forward: true }
  | { readonly floatsOnly: 'ignores base64' | 'refuses base64' }
  | { readonly status: number; readonly headers?: Record<string, string> };

interface SeenRequest {
  readonly headers: IncomingHttpHeaders;
  readonly body: { model?: string; input?: unknown; encoding_format?: string };
}

/**
 * A real HTTP server in front of our worker, playing an upstream that rate-limits or fails on cue
 * (the hosted APIs cannot run here); it records every request it sees.
 */
class ScriptedUpstream {
  readonly seen: SeenRequest[] = [];
  private steps: Step[] = [];
  private readonly server: Server;

  constructor(private readonly target: string) {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        let raw = Buffer.concat(chunks).toString('utf8');
        const body = JSON.parse(raw) as SeenRequest['body'];
        this.seen.push({ headers: request.headers, body });
        const step = this.steps.shift() ?? { forward: true };
        if ('floatsOnly' in step) {
          if (step.floatsOnly === 'refuses base64' && body.encoding_format === 'base64') {
            response.writeHead(400, { 'content-type': 'application/json' });
            response.end(JSON.stringify({ error: { message: "encoding_format: only 'float' is supported", type: 'invalid_request_error', param: 'encoding_format', code: null } }));
            return;
          }
          raw = JSON.stringify({ ...body, encoding_format: 'float' });
        }
        if ('status' in step) {
          response.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
          response.end(JSON.stringify({ error: { message: `scripted ${step.status}`, type: 'scripted', param: null, code: null } }));
          return;
        }
        void fetch(`${this.target}${request.url ?? ''}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw }).then(async (upstream) => {
          response.writeHead(upstream.status, { 'content-type': 'application/json' });
          response.end(await upstream.text());
        });
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1`;
  }

  script(...steps: Step[]): void {
    this.steps = steps;
    this.seen.length = 0;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const local = new HashEmbedder();
const fastBackoff = { baseMs: 10, maxMs: 50 };

describe('openai embedder against our own worker over real HTTP', () => {
  let worker: RunningWorker;
  let upstream: ScriptedUpstream;
  let url: string;

  beforeAll(async () => {
    worker = await runWorker({ embedder: new HashEmbedder(), port: 0 });
    upstream = new ScriptedUpstream(worker.httpUrl as string);
    url = await upstream.listen();
  });
  afterAll(async () => {
    await upstream.close();
    await worker.stop();
  });

  const embedder = (options: Partial<ConstructorParameters<typeof OpenAiEmbedder>[0]> = {}): OpenAiEmbedder =>
    new OpenAiEmbedder({ url, model: 'hash-512-v1', dimension: 512, backoff: fastBackoff, ...options });

  it('embeds through /v1/embeddings with the same vectors as the local model, sending the API key as a bearer token', async () => {
    upstream.script();
    const inputs = ['the ledger service', 'pgvector HNSW index', ''];
    const vectors = await embedder({ apiKey: 'sk-test-123' }).embed(inputs);
    expect(vectors.map((v) => Array.from(v))).toEqual((await local.embed(inputs)).map((v) => Array.from(v)));
    expect(upstream.seen).toHaveLength(1);
    expect(upstream.seen[0]?.headers.authorization).toBe('Bearer sk-test-123');
    expect(upstream.seen[0]?.body).toMatchObject({ model: 'hash-512-v1', input: inputs, encoding_format: 'base64' });
  });

  it('takes float arrays from an endpoint that ignores base64, and asks one that refuses it for floats from then on', async () => {
    const inputs = ['the ledger service', 'pgvector HNSW index'];
    const expected = (await local.embed(inputs)).map((v) => Array.from(v));
    upstream.script({ floatsOnly: 'ignores base64' });
    expect((await embedder().embed(inputs)).map((v) => Array.from(v))).toEqual(expected);
    expect(upstream.seen.map((r) => r.body.encoding_format)).toEqual(['base64']);

    upstream.script({ floatsOnly: 'refuses base64' }, { floatsOnly: 'refuses base64' }, { floatsOnly: 'refuses base64' });
    const refused = embedder();
    expect((await refused.embed(inputs)).map((v) => Array.from(v))).toEqual(expected);
    expect((await refused.embed(inputs)).map((v) => Array.from(v))).toEqual(expected);
    expect(upstream.seen.map((r) => r.body.encoding_format)).toEqual(['base64', 'float', 'float']);
  });

  it('accepts the endpoint URL with or without /embeddings and splits large calls into several requests', async () => {
    upstream.script();
    const direct = embedder({ url: `${url}/embeddings`, maxTextsPerRequest: 2 });
    expect(direct.url).toBe(`${url}/embeddings`);
    expect(await direct.embed(['a', 'b', 'c', 'd', 'e'])).toHaveLength(5);
    expect(upstream.seen).toHaveLength(3);
  });

  it('on 429 waits the Retry-After it is given, then succeeds', async () => {
    upstream.script({ status: 429, headers: { 'retry-after': '1' } });
    // The wait is a gate the test opens: the retry must ask for Retry-After's 1000 ms and send nothing until it ends.
    const waits: number[] = [];
    let asked: () => void = () => undefined;
    const waitAsked = new Promise<void>((resolve) => (asked = resolve));
    let endWait: () => void = () => undefined;
    const waitEnded = new Promise<void>((resolve) => (endWait = resolve));
    const gate = (ms: number): Promise<void> => {
      waits.push(ms);
      asked();
      return waitEnded;
    };
    const pending = embedder({ sleep: gate }).embed(['rate limited once']);
    await waitAsked;
    expect(waits).toEqual([1000]);
    expect(upstream.seen).toHaveLength(1);
    endWait();
    expect(await pending).toHaveLength(1);
    expect(upstream.seen).toHaveLength(2);
  });

  it('fails UNAVAILABLE at once when Retry-After exceeds what it may wait', async () => {
    upstream.script({ status: 429, headers: { 'retry-after': '120' } });
    await expect(embedder({ maxRetryAfterMs: 5_000 }).embed(['x'])).rejects.toBeInstanceOf(UnavailableError);
    expect(upstream.seen).toHaveLength(1);
  });

  it('retries 5xx with backoff and succeeds; gives up UNAVAILABLE after its attempts', async () => {
    upstream.script({ status: 503 }, { status: 500 });
    expect(await embedder().embed(['flaky'])).toHaveLength(1);
    expect(upstream.seen).toHaveLength(3);
    upstream.script({ status: 502 }, { status: 502 }, { status: 502 });
    await expect(embedder({ attempts: 3 }).embed(['down'])).rejects.toBeInstanceOf(UnavailableError);
    expect(upstream.seen).toHaveLength(3);
  });

  it('does not retry a 400, and refuses another model (the worker answers 404)', async () => {
    upstream.script({ status: 400 });
    await expect(embedder().embed(['bad'])).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(upstream.seen).toHaveLength(1);
    upstream.script();
    await expect(embedder({ model: 'text-embedding-3-small', dimension: 1536 }).embed(['x'])).rejects.toThrow(/404/);
    expect(upstream.seen).toHaveLength(1);
  });

  it('refuses vectors whose length differs from the deployment dimension', async () => {
    upstream.script();
    await expect(embedder({ dimension: 384 }).embed(['x'])).rejects.toThrow(/512-d vectors .* 384-d/);
  });

  it('fails UNAVAILABLE when nothing listens', async () => {
    await expect(new OpenAiEmbedder({ url: 'http://127.0.0.1:9/v1', model: 'hash-512-v1', dimension: 512, attempts: 2, backoff: fastBackoff }).embed(['x'])).rejects.toBeInstanceOf(UnavailableError);
  });

  it('the configuration builds it, taking the API key from HYPHAE_EMBED_API_KEY, else OPENAI_API_KEY', async () => {
    const env = { HYPHAE_EMBEDDER: 'openai', HYPHAE_EMBED_URL: url, HYPHAE_EMBED_MODEL: 'hash-512-v1' };
    upstream.script();
    const configured = await createConfiguredEmbedder(loadConfig({ ...env, HYPHAE_EMBED_API_KEY: 'sk-from-env', OPENAI_API_KEY: 'sk-openai' }));
    expect(configured.dimension).toBe(512);
    await configured.embed(['x']);
    expect(upstream.seen[0]?.headers.authorization).toBe('Bearer sk-from-env');
    upstream.script();
    await (await createConfiguredEmbedder(loadConfig({ ...env, OPENAI_API_KEY: 'sk-openai' }))).embed(['y']);
    expect(upstream.seen[0]?.headers.authorization).toBe('Bearer sk-openai');
    await expect(createEmbedder({ kind: 'openai', model: 'm' })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(createEmbedder({ kind: 'openai', url, model: 'my-custom-model' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(createEmbedder({ kind: 'openai', url, model: 'my-custom-model', dimension: 512 })).resolves.toBeInstanceOf(OpenAiEmbedder);
  });
});
