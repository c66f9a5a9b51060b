/**
 * `hyphae worker`: serves one embedder as a NATS queue-group responder (when a NATS URL is set)
 * and over HTTP (`POST /v1/embeddings`, `/healthz`, `/readyz`, `/metrics`). SIGTERM stops taking
 * work and finishes what it holds.
 */
import { embedderConfigFrom } from '../app/index.js';
import { loadConfig } from '../core/config.js';
import { InvalidArgumentError } from '../core/errors.js';
import { runWorker } from '../worker/index.js';
import { parseCommand } from './args.js';
import { listenExplained, WORKER_HTTP_PORT } from './port-in-use.js';

export const DEFAULT_WORKER_PORT = 8788;

export async function runWorkerCommand(argv: readonly string[]): Promise<void> {
  const parsed = parseCommand(argv, { 'no-http': { type: 'boolean' } });
  const v = parsed.values;
  if (v.help === true) {
    process.stdout.write('Usage: hyphae worker [--nats-url URL] [--port P | --no-http] [--host H] [--embedder minilm|use-lite|hash|openai]\n');
    return;
  }
  const str = (key: string): string | undefined => (typeof v[key] === 'string' ? (v[key] as string) : undefined);
  // The worker shares the server's variables for the embedder and NATS, but has its own port.
  const config = loadConfig(process.env, {
    ...(str('nats-url') === undefined ? {} : { natsUrl: str('nats-url') }),
    ...(str('embedder') === undefined ? {} : { embedder: str('embedder') }),
    ...(str('host') === undefined ? {} : { host: str('host') }),
  });
  if (config.embedder === 'nats') {
    throw new InvalidArgumentError('a worker cannot use the nats embedder (it would ask itself): set --embedder minilm, use-lite, hash or openai');
  }
  const portText = str('port') ?? process.env.HYPHAE_WORKER_PORT;
  const port = portText === undefined ? DEFAULT_WORKER_PORT : Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InvalidArgumentError(`--port (or HYPHAE_WORKER_PORT) must be a port number, got "${portText}"`);
  }
  const worker = await listenExplained(WORKER_HTTP_PORT, port, () =>
    runWorker({
      embedderConfig: { ...embedderConfigFrom(config), embedsOnly: true },
      ...(config.natsUrl === undefined ? {} : { natsUrl: config.natsUrl }),
      ...(v['no-http'] === true ? {} : { port, host: config.host }),
      handleSignals: true,
      logger: config.logLevel !== 'silent',
    }),
  );
  process.stderr.write(
    `hyphae worker: ${worker.modelId} (${worker.dimension}-d)` +
      `${worker.subject === undefined ? '' : `; NATS subject ${worker.subject}`}` +
      `${worker.httpUrl === undefined ? '' : `; HTTP ${worker.httpUrl}`}\n`,
  );
  await worker.stopped;
}
