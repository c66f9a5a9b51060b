/**
 * The HTTP app `hyphae serve` runs over the composed process (src/app), its settings taken from
 * the process configuration: the HTTP surface's app (src/http) with the other surfaces mounted on
 * it — MCP at /mcp with its push streams, the web console at /console and A2A when configured. Tests and benches that claim to
 * run "what serve runs" build it here too, rather than wiring their own.
 */
import type { FastifyInstance } from 'fastify';
import { registerA2aRoutes } from '../a2a/index.js';
import type { HyphaeApp } from '../app/index.js';
import { IssuerMetadataSource } from '../auth/oauth/issuer-metadata-source.js';
import { loadConsoleBundle, registerConsoleRoutes, type ConsoleSignIn } from '../console/index.js';
import { UnavailableError } from '../core/errors.js';
import type { OAuthConfig } from '../core/oauth-config.js';
import { buildHttpApp, type HttpAppDeps, type MountRoutes } from '../http/build-http-app.js';
import { httpConfigOf } from '../http/http-config.js';
import { SERVER_VERSION, channelSettingsOf, createMcpRoutes, createPushStream } from '../mcp/index.js';
import type { ChannelSettings, ListenPushStreams, PushStream, PushStreamOptions } from '../mcp/index.js';
import type { HydraConnection, ToolsetChoice } from '../mcp/index.js';
import { serveToolsets } from './serve-toolsets.js';
import { createSourceLinkKey } from '../surface-shared/index.js';

/** GET /mcp push stream settings (keep-alive interval, buffer bound); defaults in src/mcp/transports/push-stream.ts. */
export type PushStreamSettings = Pick<PushStreamOptions, 'heartbeatMs' | 'maxBufferedBytes'>;

export interface SurfacesAppDeps extends Omit<HttpAppDeps, 'routes'> {
  readonly pushStream?: PushStreamSettings;
  /** Mount the web console at /console (HYPHAE_CONSOLE); default off. */
  readonly console?: boolean;
  /** Claude Code channel events on /mcp (HYPHAE_MCP_CHANNEL and its settings); absent: off. */
  readonly channel?: ChannelSettings;
  /** The toolsets /mcp serves when a request names none (HYPHAE_MCP_TOOLSETS); absent: hyphae's eleven tools. */
  readonly toolsets?: ToolsetChoice;
  /** The HydraDB tools' defaults (HYDRADB_DATABASE, HYDRADB_COLLECTION). */
  readonly hydradb?: HydraConnection;
  /** Signs hydradb_inspect's links (HYPHAE_HYDRADB_LINK_SECRET); absent: a random key of this process. */
  readonly linkSecret?: string;
}

/** The app with every surface on it, and its MCP pushes (tests count their open streams). */
export interface SurfacesApp {
  readonly app: FastifyInstance;
  readonly pushStream: PushStream;
  readonly listenStreams: ListenPushStreams;
}

export interface ServeAppOptions {
  /** Defaults to the configured log level on stdout. */
  readonly logger?: HttpAppDeps['logger'];
  /** The failed-authentication limiter shared with the gRPC port (serve-grpc.ts). */
  readonly failedAuth?: HttpAppDeps['failedAuth'];
  readonly pushStream?: PushStreamSettings;
}

/** The HTTP app with REST (its own), MCP at /mcp and, when configured, A2A. */
export async function buildSurfacesApp(deps: SurfacesAppDeps): Promise<SurfacesApp> {
  const { pushStream: pushSettings, console: withConsole, channel, toolsets, hydradb, linkSecret, ...httpDeps } = deps;
  const sourceLinks = createSourceLinkKey(linkSecret);
  const { facade, metrics, version } = deps;
  // The stream is built before the app whose log its background lookups report to.
  let warn = (_error: unknown): void => undefined;
  const pushStream = createPushStream({
    facade,
    metrics,
    ...pushSettings,
    ...(channel === undefined ? {} : { channel }),
    onError: (error) => warn(error),
  });
  const mcp = createMcpRoutes({
    facade,
    pushStream,
    observer: metrics,
    pushDrops: metrics,
    serverVersion: version,
    channel: channel !== undefined,
    ...(toolsets === undefined ? {} : { toolsets }),
    ...(hydradb === undefined ? {} : { hydradb }),
    links: sourceLinks,
    ...(deps.config.publicUrl === undefined ? {} : { publicUrl: deps.config.publicUrl }),
  });
  // Opt-in, and outside the OpenAPI document: A2A is its own protocol with its own card.
  const mountA2a: MountRoutes = (app) => {
    registerA2aRoutes(app, { facade, version, metrics, ...(deps.config.oauth === undefined ? {} : { oauth: deps.config.oauth }) });
  };
  const routes = [mcp.mount, ...(withConsole === true ? [mountConsole(deps.config.oauth)] : []), ...(deps.config.a2a ? [mountA2a] : [])];
  const app = await buildHttpApp({ ...httpDeps, routes, sourceLinks });
  warn = (error): void => app.log.warn({ err: error }, 'push stream lookup failed');
  return { app, pushStream, listenStreams: mcp.listenStreams };
}

export async function buildServeApp(hyphae: HyphaeApp, options: ServeAppOptions = {}): Promise<FastifyInstance> {
  return (await buildServeAppWithStreams(hyphae, options)).app;
}

/** The same app, with its MCP push streams (tests count their open streams). */
export function buildServeAppWithStreams(hyphae: HyphaeApp, options: ServeAppOptions = {}): Promise<SurfacesApp> {
  const { config } = hyphae;
  const channel = channelSettingsOf(config.channel);
  return buildSurfacesApp({
    facade: hyphae.facade,
    config: httpConfigOf(config),
    readiness: hyphae.readiness,
    metrics: hyphae.metrics,
    logger: options.logger ?? config.log,
    version: SERVER_VERSION,
    ...(options.failedAuth === undefined ? {} : { failedAuth: options.failedAuth }),
    ...(options.pushStream === undefined ? {} : { pushStream: options.pushStream }),
    console: config.http.console,
    ...(channel === undefined ? {} : { channel }),
    ...serveToolsets(config),
  });
}

/** The web console at /console, from the bundle built into dist/console (read once, here). */
function mountConsole(oauth: OAuthConfig | undefined): MountRoutes {
  const bundle = loadConsoleBundle();
  const signIn = oauth?.console === undefined ? undefined : consoleSignIn(oauth, oauth.console);
  return (app) => registerConsoleRoutes(app, bundle, signIn);
}

/** The console as a public client of the issuer, its endpoints discovered once (a failure is retried after a pause). */
function consoleSignIn(oauth: OAuthConfig, client: NonNullable<OAuthConfig['console']>): ConsoleSignIn {
  const source = new IssuerMetadataSource(oauth.issuer);
  return {
    issuer: oauth.issuer,
    clientId: client.clientId,
    scope: client.scope,
    resource: oauth.resource,
    async endpoints() {
      const { authorizationEndpoint, tokenEndpoint } = await source.get();
      if (authorizationEndpoint === undefined || tokenEndpoint === undefined) {
        throw new UnavailableError('the authorization server names no authorization_endpoint or token_endpoint');
      }
      return { authorizationEndpoint, tokenEndpoint };
    },
  };
}
