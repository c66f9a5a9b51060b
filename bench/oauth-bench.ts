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
import { TokenPrincipals } from '../src/auth/oauth/token-principals.js';
import { buildSurfacesApp } from '../src/cli/serve-app.js';
import { loadConfig } from '../src/core/config.js';
import { HashEmbedder } from '../src/embed/hash-embedder.js';
import { resolveHttpConfig } from '../src/http/http-config.js';
import { createHyphaeMetrics } from '../src/metrics/index.js';
import { startAuthorizationServer } from '../test/support/authorization-server.js';
import { openEngine } from './harness/engine.js';
import { elapsedMs } from './harness/measure.js';
import { loadAverageRow, opRounds } from './harness/op-rounds.js';
import { ratioRow } from './harness/rows.js';
import { percentile, type BenchSection } from './harness/section.js';
import { postJson } from './harness/loopback-post.js';

const PUBLIC_URL = 'http://127.0.0.1:8787';
const ROUNDS = 10;
const CALLS_PER_ROUND = 100;
const WARMUP_CALLS = 100;
const AUTH_ONLY_CALLS = 2_000;
const BEACONS = 5;
const MCP_ACCEPT = { accept: 'application/json, text/event-stream' };
const CALL = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_beacons', arguments: { limit: 10 } } };

/** Microseconds per authentication, `calls` in a row after 100 untimed. */
async function microsecondsEach(calls: number, authenticate: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 100; i += 1) await authenticate();
  const ms = await elapsedMs(async () => {
    for (let i = 0; i < calls; i += 1) await authenticate();
  });
  return (ms * 1000) / calls;
}

export async function runOAuthBench(): Promise<BenchSection> {
  const as = await startAuthorizationServer({ accessTokenTtlSeconds: 3_600, signInAs: { sub: 'bench-agent', claims: { hyphae_tenant: 'bench' } } });
  const oauth = loadConfig({ HYPHAE_OAUTH_ISSUER: as.issuer, HYPHAE_PUBLIC_URL: PUBLIC_URL, HYPHAE_OAUTH_ALLOWED_TENANTS: 'bench' }).oauth;
  if (oauth === undefined) throw new Error('OAuth is not configured');
  const embedder = new HashEmbedder();
  const engine = await openEngine(embedder, { oauth, key: { agent: 'bench-agent' } });
  const { db, facade, key, principal } = engine;
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
    for (let i = 0; i < BEACONS; i += 1) await facade.placeBeacon(principal, { text: `bench interest ${i}`, threshold: 0.5, include_own: false });
    const { accessToken } = await as.obtainAccessToken({ resource: PUBLIC_URL, scope: 'hyphae:read hyphae:write' });
    const byToken = { authorization: `Bearer ${accessToken}`, ...MCP_ACCEPT };
    const ok = async (sent: Promise<{ status: number; body: string }>): Promise<void> => {
      const response = await sent;
      if (response.status !== 200 || response.body.includes('"error"')) throw new Error(`tools/call answered ${response.status}: ${response.body}`);
    };
    const fetchesAtStart = as.jwksFetches;
    // Rounds of the same call by key and by token, the order flipping each round.
    const measured = await opRounds(
      {
        key: () => ok(postJson(agent, port, '/mcp', key, CALL, MCP_ACCEPT)),
        token: () => ok(postJson(agent, port, '/mcp', undefined, CALL, byToken)),
      },
      { warmupOps: WARMUP_CALLS, rounds: ROUNDS, opsPerRound: CALLS_PER_ROUND },
    );
    const keyAuth = await microsecondsEach(AUTH_ONLY_CALLS, () => facade.authenticate(key));
    const tokenAuth = await microsecondsEach(AUTH_ONLY_CALLS, () => facade.authenticateBearer(accessToken));
    const jwksFetches = as.jwksFetches - fetchesAtStart;
    const uncached = new TokenPrincipals(db, oauth, { cacheTtlMs: 0 });
    const verifyEach = await microsecondsEach(AUTH_ONLY_CALLS, () => uncached.authenticate(accessToken));
    const latencies = { key: measured.key.latencies, token: measured.token.latencies };
    const cpuMs = { key: measured.key.cpuMs, token: measured.token.cpuMs };
    const n = latencies.token.length;
    return {
      name: 'oauth',
      rows: [
        loadAverageRow(),
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
    await engine.close();
    await embedder.close();
    await as.close();
  }
}
