/**
 * `hyphae serve`: REST + MCP over HTTP + health + metrics on one port, gRPC (with gRPC-Web and
 * Connect) on another (HYPHAE_GRPC_PORT, default 50051, 0 = off). Embedded by default.
 * SIGTERM/SIGINT: stop accepting on both, drain in-flight calls and live streams, flush recall hits
 * and the outbox, close the bus and the database (PGlite is closed cleanly, never corrupted).
 */
import { openHyphaeApp } from '../app/index.js';
import { DEFAULT_CONFIG, loadProcessConfig } from '../core/config.js';
import { describeLoggableError } from '../core/loggable-error.js';
import { SERVER_VERSION } from '../mcp/protocol/server-version.js';
import { GRAPH_TOOLS_NOT_OFFERED } from '../mcp/index.js';
import { SERVE_OPTIONS, configFlags, parseCommand } from './args.js';
import { printBootstrapBanner } from './bootstrap-banner.js';
import { GRPC_PORT, HTTP_PORT, listenExplained } from './port-in-use.js';
import { buildServeApp } from './serve-app.js';
import { createSharedFailedAuthLimiter, startServeGrpc } from './serve-grpc.js';
import { onShutdownSignal } from './shutdown.js';

const SERVE_USAGE =
  'Usage: hyphae serve [--host H] [--port P] [--grpc-port P] [--data-dir D] [--database-url URL] [--nats-url URL] [--embedder E]\n' +
  `  --host: the address both ports listen on (HYPHAE_HOST, default ${DEFAULT_CONFIG.http.host})\n` +
  `  --port: HTTP — REST, MCP, console (HYPHAE_PORT, default ${DEFAULT_CONFIG.http.port}); --grpc-port: gRPC (HYPHAE_GRPC_PORT, default ${DEFAULT_CONFIG.grpc.port}, 0 = off)\n`;

export async function runServeCommand(argv: readonly string[]): Promise<void> {
  const parsed = parseCommand(argv, SERVE_OPTIONS);
  if (parsed.values.help === true) {
    process.stdout.write(SERVE_USAGE);
    return;
  }
  const config = loadProcessConfig(configFlags(parsed.values));
  const hyphae = await openHyphaeApp(config, {
    command: 'hyphae serve',
    onBackgroundError: (error) => process.stderr.write(`hyphae serve: background task failed: ${describeLoggableError(error)}\n`),
  });
  let app: Awaited<ReturnType<typeof buildServeApp>> | undefined;
  let grpc: Awaited<ReturnType<typeof startServeGrpc>>;
  try {
    const failedAuth = createSharedFailedAuthLimiter(hyphae);
    app = await buildServeApp(hyphae, { failedAuth });
    grpc = await listenExplained(GRPC_PORT, config.grpc.port, () => startServeGrpc(hyphae, failedAuth));
    const http = app;
    const address = await listenExplained(HTTP_PORT, config.http.port, () => http.listen({ host: config.http.host, port: config.http.port }));
    // Minted once both ports are held: a start that cannot listen must not mint a key it never shows.
    const bootstrap = await hyphae.keyAdmin.bootstrapAdminKey(config.keys.bootstrapAdminKey);
    // The clear key is shown once, only when this start minted it (never a preset key from the environment).
    const baseUrl = publicBaseUrl(config.http.host, address);
    const consoleUrl = config.http.console ? `${baseUrl}/console/` : undefined;
    if (bootstrap !== null && config.keys.bootstrapAdminKey === undefined) printBootstrapBanner(bootstrap, baseUrl, consoleUrl);
    // Before the "serving on" line: whoever waits for that line finds the gRPC port up too.
    process.stderr.write(grpc === undefined ? 'hyphae serve: gRPC off (HYPHAE_GRPC_PORT=0 or --grpc-port 0)\n' : `hyphae serve: gRPC, gRPC-Web and Connect (h2c) on ${grpc.address}\n`);
    process.stderr.write(consoleUrl === undefined ? 'hyphae serve: web console off (HYPHAE_CONSOLE=off)\n' : `hyphae serve: web console at ${consoleUrl}\n`);
    if (config.mcpToolsets.graphTools === true) process.stderr.write(`hyphae serve: ${GRAPH_TOOLS_NOT_OFFERED}\n`);
    process.stderr.write(
      `hyphae ${SERVER_VERSION} serving on ${address} (${config.database.embedded ? `embedded, data in ${config.database.dataDir}` : 'PostgreSQL'}; ` +
        `embedder ${hyphae.embedder.modelId}; bus ${config.gossip.natsUrl === undefined ? 'in-process' : 'NATS'})\n`,
    );
  } catch (error) {
    await grpc?.close().catch(() => undefined);
    await app?.close().catch(() => undefined);
    await hyphae.close().catch(() => undefined);
    throw error;
  }
  const server = app;
  const grpcServer = grpc;
  await onShutdownSignal(async (signal) => {
    process.stderr.write(`hyphae serve: ${signal}: draining requests and closing\n`);
    await Promise.all([server.close(), grpcServer?.close()]);
    await hyphae.close();
  });
}

function publicBaseUrl(host: string, address: string): string {
  // Listening on every interface: show the loopback URL a local client can use.
  if (host === '0.0.0.0' || host === '::') return address.replace(/\/\/[^/:]+|\/\/\[[^\]]+\]/, '//127.0.0.1');
  return address;
}
