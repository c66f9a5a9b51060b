/**
 * `hyphae serve`: REST + MCP over HTTP + health + metrics on one port. Embedded by default.
 * SIGTERM/SIGINT: stop accepting, drain in-flight requests and live streams, flush recall hits
 * and the outbox, close the bus and the database (PGlite is closed cleanly, never corrupted).
 */
import { loadConfig } from '../core/config.js';
import { describeLoggableError } from '../core/loggable-error.js';
import { SERVER_VERSION } from '../mcp/server-version.js';
import { configFlags, parseCommand } from './args.js';
import { printBootstrapBanner } from './bootstrap-banner.js';
import { startProcessRuntime } from './process-runtime.js';
import { buildServeApp } from './serve-app.js';
import { onShutdownSignal } from './shutdown.js';

export async function runServeCommand(argv: readonly string[]): Promise<void> {
  const parsed = parseCommand(argv);
  if (parsed.values.help === true) {
    process.stdout.write('Usage: hyphae serve [--host H] [--port P] [--data-dir D] [--database-url URL] [--nats-url URL] [--embedder E]\n');
    return;
  }
  const config = loadConfig(process.env, configFlags(parsed.values));
  const processRuntime = await startProcessRuntime(config, {
    command: 'hyphae serve',
    onBackgroundError: (error) => process.stderr.write(`hyphae serve: background task failed: ${describeLoggableError(error)}\n`),
  });
  const { runtime } = processRuntime;
  let app: Awaited<ReturnType<typeof buildServeApp>> | undefined;
  try {
    const bootstrap = await runtime.keyAdmin.bootstrapAdminKey(config.bootstrapAdminKey);
    app = await buildServeApp(processRuntime);
    const address = await app.listen({ host: config.host, port: config.port });
    // The clear key is shown once, only when this start minted it (never a preset key from the environment).
    if (bootstrap !== null && config.bootstrapAdminKey === undefined) printBootstrapBanner(bootstrap, publicBaseUrl(config.host, address));
    process.stderr.write(
      `hyphae ${SERVER_VERSION} serving on ${address} (${config.embedded ? `embedded, data in ${config.dataDir}` : 'PostgreSQL'}; ` +
        `embedder ${runtime.embedder.modelId}; bus ${config.natsUrl === undefined ? 'in-process' : 'NATS'})\n`,
    );
  } catch (error) {
    await app?.close().catch(() => undefined);
    await processRuntime.close().catch(() => undefined);
    throw error;
  }
  const server = app;
  await onShutdownSignal(async (signal) => {
    process.stderr.write(`hyphae serve: ${signal}: draining requests and closing\n`);
    await server.close();
    await processRuntime.close();
  });
}

function publicBaseUrl(host: string, address: string): string {
  // Listening on every interface: show the loopback URL a local client can use.
  if (host === '0.0.0.0' || host === '::') return address.replace(/\/\/[^/:]+|\/\/\[[^\]]+\]/, '//127.0.0.1');
  return address;
}
