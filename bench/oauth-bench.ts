/**
 * What signing in with OAuth costs per call: MCP `tools/call list_beacons` over a real socket (the
 * app `hyphae serve` runs, keep-alive HTTP/1.1) authenticated by an OAuth access token — a JWT from
 * a real authorization server (oidc-provider), verified locally against its cached JWKS, the
 * principal then cached for 5 s like a key's — against the same call by the same agent with an API
 * key (hashed, then a cached lookup), in alternating rounds of one run on one database (PGlite,
 * hash embedder). Also the authentications alone, a JWT verified on every call (no principal
 * cache), and how often the JWKS was fetched (once, for the first token).
 */
import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { TokenPrincipals } from '../src/auth/oauth/token-principals.js';
import { buildSurfacesApp } from '../src/cli/serve-app.js';
import { loadConfig } from '../src/core/config.js';
import { createEmbedder } from '../src/embed/create-embedder.js';
import { resolveHttpConfig } from '../src/http/http-config.js';
import { createHyphaeMetrics } from '../src/metrics/index.js';
import { createMemoryFacade } from '../src/service/index.js';
import { migrate } from '../src/store/migrator.js';
import { openPgliteDb } from '../src/store/pglite-driver.js';
import { startAuthorizationServer } from '../test/support/authorization-server.js';
import { percentile, type BenchRow, type BenchSection } from './harness/section.js';
import { postJson } from './harness/loopback-post.js';

const PUBLIC_URL = 'http://127.0.0.1:8787';
const ROUNDS = 10;
const CALLS_PER_ROUND = 100;
const WARMUP_CALLS = 100;
const AUTH_ONLY_CALLS = 2_000;
const BEACONS = 5;
const MCP_ACCEPT = { accept: 'application/json, text/event-stream' };
const CALL = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_beacons', arguments: { limit: 10 } } };

type Side = 'key' | 'token';

interface Measured {
  readonly latencies: Record<Side, number[]>;
  readonly cpuMs: Record<Side, number>;
}

function round3(value: number): number {
  return Number(value.toFixed(3));
}

function ratioRow(metric: string, unit: string, token: number, key: number, extra: Partial<BenchRow> = {}): BenchRow {
  return { metric, value: round3(token), unit, baseline: round3(key), ratio: round3(token / key), ...extra };
}

/** Alternating rounds (the order flips each round) of the same call by key and by token. */
async function measure(call: Record<Side, () => Promise<void>>): Promise<Measured> {
  for (let i = 0; i < WARMUP_CALLS; i += 1) {
    await call.key();
    await call.token();
  }
  const measured: Measured = { latencies: { key: [], token: [] }, cpuMs: { key: 0, token: 0 } };
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const side of round % 2 === 0 ? (['key', 'token'] as const) : (['token', 'key'] as const)) {
      const cpu = process.cpuUsage();
      for (let i = 0; i < CALLS_PER_ROUND; i += 1) {
        const started = performance.now();
        await call[side]();
        measured.latencies[side].push(performance.now() - started);
      }
      const used = process.cpuUsage(cpu);
      measured.cpuMs[side] += (used.user + used.system) / 1000;
    }
  }
  return measured;
}

/** Microseconds per authentication, `calls` in a row. */
async function microsecondsEach(calls: number, authenticate: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 100; i += 1) await authenticate();
  const started = performance.now();
  for (let i = 0; i < calls; i += 1) await authenticate();
  return ((performance.now() - started) * 1000) / calls;
}

export async function runOAuthBench(): Promise<BenchSection> {
  const as = await startAuthorizationServer({ accessTokenTtlSeconds: 3_600, signInAs: { sub: 'bench-agent', claims: { hyphae_tenant: 'bench' } } });
  const oauth = loadConfig({ HYPHAE_OAUTH_ISSUER: as.issuer, HYPHAE_PUBLIC_URL: PUBLIC_URL, HYPHAE_OAUTH_ALLOWED_TENANTS: 'bench' }).oauth;
  if (oauth === undefined) throw new Error('OAuth is not configured');
  const embedder = await createEmbedder({ kind: 'hash' });
  const db = await openPgliteDb();
  await migrate(db, { dimension: embedder.dimension, modelId: embedder.modelId });
  const facade = createMemoryFacade({ db, embedder, oauth, config: { hitFlushIntervalMs: 3_600_000 } });
  const { app } = await buildSurfacesApp({
    facade,
    config: resolveHttpConfig({ rateLimitPerMinute: 1_000_000_000, oauth }),
    readiness: [],
    metrics: createHyphaeMetrics(),
    logger: false,
    version: 'bench',
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const { key } = await facade.keyAdmin.createKey({ tenant: 'bench', agent: 'bench-agent' });
    const principal = await facade.authenticate(key);
    for (let i = 0; i < BEACONS; i += 1) await facade.placeBeacon(principal, { text: `bench interest ${i}`, threshold: 0.5, include_own: false });
    const { accessToken } = await as.obtainAccessToken({ resource: PUBLIC_URL, scope: 'hyphae:read hyphae:write' });
    const byToken = { authorization: `Bearer ${accessToken}`, ...MCP_ACCEPT };
    const ok = async (sent: Promise<{ status: number; body: string }>): Promise<void> => {
      const response = await sent;
      if (response.status !== 200 || response.body.includes('"error"')) throw new Error(`tools/call answered ${response.status}: ${response.body}`);
    };
    const fetchesAtStart = as.jwksFetches;
    const measured = await measure({
      key: () => ok(postJson(agent, port, '/mcp', key, CALL, MCP_ACCEPT)),
      token: () => ok(postJson(agent, port, '/mcp', undefined, CALL, byToken)),
    });
    const keyAuth = await microsecondsEach(AUTH_ONLY_CALLS, () => facade.authenticate(key));
    const tokenAuth = await microsecondsEach(AUTH_ONLY_CALLS, () => facade.authenticateBearer(accessToken));
    const jwksFetches = as.jwksFetches - fetchesAtStart;
    const uncached = new TokenPrincipals(db, oauth, { cacheTtlMs: 0 });
    const verifyEach = await microsecondsEach(AUTH_ONLY_CALLS, () => uncached.authenticate(accessToken));
    const { latencies, cpuMs } = measured;
    const n = latencies.token.length;
    const [load1] = loadavg();
    return {
      name: 'oauth',
      rows: [
        { metric: 'load average (1 min) at the end', value: round3(load1 ?? 0), unit: '', note: `${cpus().length} CPUs; wall-time ratios are only meaningful when this is below the CPU count` },
        ratioRow('tools/call list_beacons p50, token vs key', 'ms', percentile(latencies.token, 50), percentile(latencies.key, 50), { note: `${n} sequential calls each side` }),
        ratioRow('tools/call list_beacons p99, token vs key', 'ms', percentile(latencies.token, 99), percentile(latencies.key, 99)),
        ratioRow('tools/call CPU per call, token vs key', 'ms', cpuMs.token / n, cpuMs.key / latencies.key.length, { note: 'client and server share the process' }),
        ratioRow('authentication alone, token vs key', 'µs', tokenAuth, keyAuth, { note: 'both principals from their 5 s cache: a SHA-256 and a map lookup' }),
        ratioRow('JWT verified on every call vs key', 'µs', verifyEach, keyAuth, { note: 'RS256 signature, claims and the agent’s trust (cached): the cost a new token pays once' }),
        {
          metric: 'JWKS fetches for all token authentications',
          value: jwksFetches,
          unit: 'fetches',
          note: `${WARMUP_CALLS + n} calls and ${AUTH_ONLY_CALLS + 100} authentications by token on the server: only the first fetched the keys`,
        },
      ],
    };
  } finally {
    agent.destroy();
    await app.close();
    await facade.close();
    await embedder.close();
    await db.close();
    await as.close();
  }
}
