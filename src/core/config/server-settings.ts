/** Settings of the process's listeners: the HTTP and gRPC surfaces, request limits, logs, keys, the worker. */
import { z } from 'zod';
import { csv, integer, oneZero, onOff, port } from './setting-parsers.js';
import { setting } from './setting.js';

/** gRPC's conventional port; `HYPHAE_GRPC_PORT=0` turns the gRPC surface off. */
export const DEFAULT_GRPC_PORT = 50051;

/** The window of the per-minute request limits (`requests.rateLimitPerMinute`, `requests.failedAuthPerMinute`). */
export const RATE_LIMIT_WINDOW_MS = 60_000;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const trustProxy = z
  .string()
  // `true` would take the client address from the left-most X-Forwarded-For entry, which the client writes itself.
  .refine((v) => v !== 'true', 'true is refused: it believes an X-Forwarded-For the client writes itself; give the number of proxies in front of Hyphae (e.g. 1) or their addresses/CIDRs')
  .refine((v) => v === 'true' || /^(false|\d+|[0-9a-fA-F.:/]+(,[0-9a-fA-F.:/]+)*)$/.test(v), 'false, a hop count, or a comma-separated list of proxy addresses/CIDRs')
  .transform((v): false | number | readonly string[] => (v === 'false' ? false : /^\d+$/.test(v) ? Number(v) : v.split(',')));

export const httpSettings = {
  host: setting({ env: 'HYPHAE_HOST', default: '127.0.0.1', parse: z.string().min(1), doc: 'bind address (loopback unless you choose otherwise)' }),
  port: setting({ env: 'HYPHAE_PORT', default: '8787', parse: port, doc: 'HTTP port' }),
  allowedHosts: setting({ env: 'HYPHAE_ALLOWED_HOSTS', default: '', parse: csv, doc: 'extra `Host` names accepted (loopback always), comma-separated; `*.suffix` patterns, `*` any; others get `421`' }),
  allowedOrigins: setting({ env: 'HYPHAE_ALLOWED_ORIGINS', default: '', parse: csv, doc: 'browser origins allowed (`scheme://host[:port]`, comma-separated; CORS closed otherwise); others get `403`' }),
  trustProxy: setting({
    env: 'HYPHAE_TRUST_PROXY',
    default: 'false',
    parse: trustProxy,
    doc: 'whose `X-Forwarded-*` to believe: the number of proxies in front (`1` behind one ingress) or their addresses/CIDRs; `true` is refused at start (the client writes the left-most `X-Forwarded-For` itself)',
  }),
  metricsToken: setting({ env: 'HYPHAE_METRICS_TOKEN', parse: z.string().min(16), doc: 'when set, `GET /metrics` requires `Authorization: Bearer <token>`' }),
  a2a: setting({
    env: 'HYPHAE_A2A',
    default: '0',
    parse: oneZero,
    doc: '`1`: serve the A2A agent card (`/.well-known/agent-card.json`) and JSON-RPC endpoint (`POST /a2a`) on the HTTP port ([docs/a2a.md](docs/a2a.md))',
  }),
  console: setting({
    env: 'HYPHAE_CONSOLE',
    default: 'on',
    parse: onOff,
    doc: 'the web console at `/console` (same origin as the API, wherever the server is bound; every action is a REST call with the signed-in key): `off` turns it off ([docs/console.md](docs/console.md))',
  }),
} as const;

export const grpcSettings = {
  port: setting({
    env: 'HYPHAE_GRPC_PORT',
    default: String(DEFAULT_GRPC_PORT),
    parse: port,
    doc: 'gRPC port (gRPC, gRPC-Web and Connect over h2c, on `HYPHAE_HOST`); `0` turns it off — see [docs/grpc.md](docs/grpc.md)',
  }),
} as const;

/** Limits every surface applies to each request (HTTP and gRPC alike). */
export const requestSettings = {
  bodyLimitBytes: setting({
    env: 'HYPHAE_BODY_LIMIT_BYTES',
    default: String(256 * 1024),
    parse: integer(1024, 64 * 1024 * 1024),
    doc: 'request body limit, and the largest gRPC message (`413` beyond, naming the limit and this setting)',
  }),
  rateLimitPerMinute: setting({ env: 'HYPHAE_RATE_LIMIT_PER_MINUTE', default: '600', parse: integer(1), doc: 'per-key request rate (`429` with `Retry-After` beyond)' }),
  failedAuthPerMinute: setting({
    env: 'HYPHAE_FAILED_AUTH_PER_MINUTE',
    default: '30',
    parse: integer(1),
    doc: 'failed authentications (`401`) per client address per minute; beyond, that address gets `429` with `Retry-After` before any key lookup',
  }),
} as const;

export const logSettings = {
  level: setting({ env: 'HYPHAE_LOG_LEVEL', default: 'info', parse: z.enum(LOG_LEVELS), doc: '`fatal` … `trace`, `silent`' }),
  requests: setting({
    env: 'HYPHAE_REQUEST_LOG',
    parse: z.enum(['info', 'debug']),
    doc: 'the level of HTTP request log lines (unset: `info` with `HYPHAE_DATABASE_URL`, `debug` embedded): `info` writes fastify\'s JSON lines for a log collector; `debug` one line per request, seen only with `HYPHAE_LOG_LEVEL=debug`',
  }),
} as const;

export const keySettings = {
  apiKey: setting({ env: 'HYPHAE_API_KEY', parse: z.string().min(1), doc: 'identity of `hyphae mcp` (stdio) and `hyphae hook`; the admin key of `hyphae keys … --remote`' }),
  bootstrapAdminKey: setting({ env: 'HYPHAE_BOOTSTRAP_ADMIN_KEY', parse: z.string().min(16), doc: 'clustered installs: the tenant-`default` admin key to install on first start' }),
} as const;

export const workerSettings = {
  port: setting({ env: 'HYPHAE_WORKER_PORT', default: '8788', parse: port, doc: '`hyphae worker`\'s HTTP port (`--port`)' }),
} as const;

export const hookSettings = {
  stateHome: setting({ env: 'XDG_STATE_HOME', parse: z.string().min(1), doc: '`hyphae hook` keeps its cursor under `$XDG_STATE_HOME/hyphae` (unset: `~/.local/state/hyphae`; `--state-dir` overrides)' }),
} as const;
