/**
 * `hyphae worker`: serves one embedder as a NATS queue-group responder (when a NATS URL is set)
 * and over HTTP (`POST /v1/embeddings`, `/healthz`, `/readyz`, `/metrics`). SIGTERM stops taking
 * work and finishes what it holds.
 */
import { embedderConfigFrom } from '../app/index.js';
import { loadProcessConfig } from '../core/config.js';
import { InvalidArgumentError } from '../core/errors.js';
import { runWorker } from '../worker/index.js';
import { parseCommand } from './args.js';
import { listenExplained, WORKER_HTTP_PORT } from './port-in-use.js';

export async function runWorkerCommand(argv: readonly string[]): Promise<void> {
  const parsed = parseCommand(argv, { 'no-http': { type: 'boolean' } });
  const v = parsed.values;
  if (v.help === true) {
    process.stdout.write('Usage: hyphae worker [--nats-url URL] [--port P | --no-http] [--host H] [--embedder minilm|use-lite|hash|openai]\n');
    return;
  }
  const str = (key: string): string | undefined => (typeof v[key] === 'string' ? (v[key] as string) : undefined);
  // The worker shares the server's variables for the embedder and NATS, but has its own port.
  const config = loadProcessConfig({
    ...(str('nats-url') === undefined ? {} : { natsUrl: str('nats-url') }),
    ...(str('embedder') === undefined ? {} : { embedder: str('embedder') }),
    ...(str('host') === undefined ? {} : { host: str('host') }),
    ...(str('port') === undefined ? {} : { workerPort: str('port') }),
  });
  if (config.embed.kind === 'nats') {
    throw new InvalidArgumentError('a worker cannot use the nats embedder (it would ask itself): set --embedder minilm, use-lite, hash or openai');
  }
  const port = config.worker.port;
  const worker = await listenExplained(WORKER_HTTP_PORT, port, () =>
    runWorker({
      embedderConfig: { ...embedderConfigFrom(config), embedsOnly: true },
      ...(config.gossip.natsUrl === undefined ? {} : { natsUrl: config.gossip.natsUrl }),
      ...(v['no-http'] === true ? {} : { port, host: config.http.host }),
      handleSignals: true,
      logger: config.log.level !== 'silent',
    }),
  );
  process.stderr.write(
    `hyphae worker: ${worker.modelId} (${worker.dimension}-d)` +
      `${worker.subject === undefined ? '' : `; NATS subject ${worker.subject}`}` +
      `${worker.httpUrl === undefined ? '' : `; HTTP ${worker.httpUrl}`}\n`,
  );
  await worker.stopped;
}
