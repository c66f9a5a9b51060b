/**
 * The abuse scenario of issue 13, shared by test/http/abuse.test.ts (which asserts the caps and
 * that the other tenant sees no error) and `npm run bench abuse` (which prints the other tenant's
 * latency under abuse ÷ unloaded). What `hyphae serve` runs (src/app +
 * src/cli/serve-app.ts) on a real port, embedded, with every quota small enough to reach: one
 * abuser key fills each of them — beacons, open sessions, live streams, its inbox (filled by an
 * accomplice of its tenant whose stores fan out to the abuser's 50 streams), the tenant's cells
 * and its request rate — while a victim tenant stores, recalls, lists, pulls its diffs and probes
 * /healthz.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { openHyphaeApp, type HyphaeApp } from '../../src/app/index.js';
import { buildServeApp } from '../../src/cli/serve-app.js';
import { loadConfig } from '../../src/core/config.js';
import { openSse, type SseConnection } from './sse-client.js';

export const ABUSE_LIMITS = {
  beaconsPerAgent: 200,
  streamsPerKey: 50,
  openSessionsPerAgent: 5,
  inboxDiffs: 50,
  cellsPerTenant: 150,
  requestsPerMinute: 600,
} as const;

const TOPIC = 'the payment gateway times out under load';
const EPOCH = '2000-01-01T00:00:00Z';

export interface AbuseServer {
  readonly url: string;
  readonly hyphae: HyphaeApp;
  readonly keys: { readonly abuser: string; readonly accomplice: string; readonly victim: string; readonly victimWatcher: string };
  readonly streams: SseConnection[];
  readonly errors: unknown[];
  close(): Promise<void>;
}

/** One request's outcome: status, the quota named in a 409/429 body, and its latency. */
export interface Outcome {
  readonly label: string;
  readonly status: number;
  readonly quota: string | undefined;
  readonly ms: number;
}

export async function startAbuseServer(): Promise<AbuseServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'hyphae-abuse-'));
  const config = loadConfig({
    HYPHAE_DATA_DIR: dataDir,
    HYPHAE_EMBEDDER: 'hash',
    HYPHAE_PORT: '0',
    HYPHAE_LOG_LEVEL: 'silent',
    HYPHAE_MAX_BEACONS_PER_AGENT: String(ABUSE_LIMITS.beaconsPerAgent),
    HYPHAE_MAX_STREAMS_PER_KEY: String(ABUSE_LIMITS.streamsPerKey),
    HYPHAE_MAX_OPEN_SESSIONS_PER_AGENT: String(ABUSE_LIMITS.openSessionsPerAgent),
    HYPHAE_MAX_INBOX_DIFFS: String(ABUSE_LIMITS.inboxDiffs),
    HYPHAE_MAX_CELLS_PER_TENANT: String(ABUSE_LIMITS.cellsPerTenant),
    HYPHAE_RATE_LIMIT_PER_MINUTE: String(ABUSE_LIMITS.requestsPerMinute),
  });
  const errors: unknown[] = [];
  const hyphae = await openHyphaeApp(config, { command: 'abuse scenario', onBackgroundError: (error) => errors.push(error) });
  let app: FastifyInstance | undefined;
  try {
    app = await buildServeApp(hyphae, { logger: false });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const mint = async (tenant: string, agent: string): Promise<string> => (await hyphae.keyAdmin.createKey({ tenant, agent })).key;
    const keys = {
      abuser: await mint('abuser', 'abuser'),
      accomplice: await mint('abuser', 'accomplice'),
      victim: await mint('victim', 'victim'),
      victimWatcher: await mint('victim', 'watcher'),
    };
    const streams: SseConnection[] = [];
    const server = app;
    return {
      url,
      hyphae,
      keys,
      streams,
      errors,
      async close(): Promise<void> {
        for (const stream of streams) stream.close();
        await server.close();
        await hyphae.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await app?.close();
    await hyphae.close();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

export async function request(server: AbuseServer, label: string, key: string, method: string, path: string, body?: unknown): Promise<Outcome> {
  const started = performance.now();
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'x-hyphae-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  let quota: string | undefined;
  if (response.status === 409 || response.status === 429) {
    const parsed = JSON.parse(text) as { error?: { details?: { quota?: unknown } } };
    quota = typeof parsed.error?.details?.quota === 'string' ? parsed.error.details.quota : undefined;
  }
  return { label, status: response.status, quota, ms };
}

/** The victim tenant's round of ordinary requests; its watcher has a beacon its stores reach. */
export async function victimRound(server: AbuseServer, round: number): Promise<Outcome[]> {
  const { victim, victimWatcher } = server.keys;
  return [
    await request(server, 'store', victim, 'POST', '/v1/cells', { content: `invoice export finished for batch ${round}`, cell_type: 'Fact', salience: 0.6 }),
    await request(server, 'recall', victim, 'POST', '/v1/recall', { query: 'invoice export', k: 5 }),
    await request(server, 'list', victim, 'GET', '/v1/cells?limit=20'),
    await request(server, 'pull', victimWatcher, 'GET', `/v1/diffs?since=${EPOCH}&limit=50`),
    await request(server, 'healthz', victim, 'GET', '/healthz'),
  ];
}

export async function placeVictimBeacon(server: AbuseServer): Promise<Outcome> {
  return request(server, 'beacon', server.keys.victimWatcher, 'POST', '/v1/beacons', { text: 'invoice export finished', threshold: 0.2 });
}

export interface FilledCaps {
  /** The request one past each cap. */
  readonly beaconOverCap: Outcome;
  readonly sessionOverCap: Outcome;
  readonly streamOverCap: { readonly status: number; readonly retryAfter: string | null };
  readonly accepted: { readonly beacons: number; readonly sessions: number; readonly streams: number; readonly accompliceStores: number };
}

/** Takes the abuser key to its beacon, session and stream caps and fills its inbox past its size. */
export async function fillCaps(server: AbuseServer): Promise<FilledCaps> {
  const { abuser, accomplice } = server.keys;
  let beacons = 0;
  for (let i = 0; i < ABUSE_LIMITS.beaconsPerAgent; i++) {
    const placed = await request(server, 'beacon', abuser, 'POST', '/v1/beacons', { text: `${TOPIC} ${i}`, threshold: 0.2 });
    if (placed.status === 201) beacons += 1;
  }
  const beaconOverCap = await request(server, 'beacon', abuser, 'POST', '/v1/beacons', { text: `${TOPIC} again`, threshold: 0.2 });
  let sessions = 0;
  for (let i = 0; i < ABUSE_LIMITS.openSessionsPerAgent; i++) {
    if ((await request(server, 'session', abuser, 'POST', '/v1/sessions', { project: `p${i}` })).status === 201) sessions += 1;
  }
  const sessionOverCap = await request(server, 'session', abuser, 'POST', '/v1/sessions', { project: 'one-more' });
  for (let i = 0; i < ABUSE_LIMITS.streamsPerKey; i++) server.streams.push(await openSse(`${server.url}/mcp`, { 'x-hyphae-key': abuser }));
  const over = await openSse(`${server.url}/mcp`, { 'x-hyphae-key': abuser });
  over.close();
  // The accomplice's stores each reach all 200 of the abuser's beacons: one diff each, pushed to 50 streams.
  let accompliceStores = 0;
  for (let i = 0; i < ABUSE_LIMITS.inboxDiffs * 2; i++) {
    const stored = await request(server, 'store', accomplice, 'POST', '/v1/cells', { content: `${TOPIC} at ${i}`, cell_type: 'Risk', salience: 0.9 });
    if (stored.status === 201) accompliceStores += 1;
  }
  return {
    beaconOverCap,
    sessionOverCap,
    streamOverCap: { status: over.status, retryAfter: over.headers.get('retry-after') },
    accepted: { beacons, sessions, streams: server.streams.filter((s) => s.status === 200).length, accompliceStores },
  };
}

export interface AbuseLoad {
  /** Every abuse request's outcome so far (grows while the load runs). */
  readonly outcomes: Outcome[];
  /** True once the abuse met both caps it runs into: the tenant's cells and the abuser key's request rate. */
  atCaps(): boolean;
  /** Stops the load; resolves once its requests in flight are answered. */
  stop(): Promise<void>;
}

/**
 * Abuse traffic until stopped: the accomplice keeps storing on the topic (fan-out to the abuser's
 * streams, then the tenant's cell cap), the abuser keeps placing beacons and listing them (its
 * beacon cap, then its rate limit), `parallel` requests of each at a time.
 */
export function startAbuseLoad(server: AbuseServer, parallel = 3): AbuseLoad {
  const { abuser, accomplice } = server.keys;
  const outcomes: Outcome[] = [];
  let stopped = false;
  let n = 0;
  const lane = async (next: () => Promise<Outcome>): Promise<void> => {
    while (!stopped) outcomes.push(await next());
  };
  const lanes: Promise<void>[] = [];
  for (let i = 0; i < parallel; i++) {
    lanes.push(lane(() => request(server, 'store', accomplice, 'POST', '/v1/cells', { content: `${TOPIC} load ${n++}`, cell_type: 'Risk', salience: 0.9 })));
    lanes.push(
      lane(() =>
        n++ % 2 === 0
          ? request(server, 'beacon', abuser, 'POST', '/v1/beacons', { text: `${TOPIC} more ${n}`, threshold: 0.2 })
          : request(server, 'list-beacons', abuser, 'GET', `/v1/beacons?limit=${(n % 50) + 1}`),
      ),
    );
  }
  return {
    outcomes,
    atCaps: (): boolean =>
      outcomes.some((o) => o.quota === 'cells_per_tenant') && outcomes.some((o) => o.label !== 'store' && o.status === 429),
    async stop(): Promise<void> {
      stopped = true;
      await Promise.all(lanes);
    },
  };
}
