/**
 * A deterministic synthetic corpus of engineering-memory sentences (decisions, constraints, risks…
 * about services, databases and APIs), generated from word lists with a seeded PRNG so every bench
 * run, on every machine, embeds and stores exactly the same texts.
 */

/** mulberry32: a tiny, fast, well-distributed 32-bit PRNG; returns floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SERVICES = [
  'billing service', 'checkout API', 'auth gateway', 'search indexer', 'notification worker', 'ledger service',
  'inventory API', 'user profile service', 'payments gateway', 'recommendation engine', 'audit log pipeline',
  'feature flag service', 'image resizer', 'session store', 'rate limiter', 'export job', 'webhook dispatcher',
  'reporting dashboard', 'GraphQL edge', 'mobile backend', 'email sender', 'pricing engine', 'order router',
  'shipping tracker', 'fraud scorer', 'identity provider', 'document store API', 'metrics collector',
];
const DATASTORES = [
  'PostgreSQL', 'the primary Postgres cluster', 'Redis', 'the read replica', 'S3', 'Kafka', 'NATS JetStream',
  'Elasticsearch', 'the pgvector index', 'DynamoDB', 'ClickHouse', 'the Memcached tier', 'SQLite on the edge',
  'the event store', 'the object cache', 'RabbitMQ', 'Cassandra', 'the analytics warehouse',
];
const TECH = [
  'gRPC', 'REST', 'OpenTelemetry', 'TLS 1.3', 'mutual TLS', 'JWT', 'OAuth 2.1', 'protobuf', 'JSON Schema',
  'HNSW indexes', 'connection pooling with PgBouncer', 'idempotency keys', 'exponential backoff', 'circuit breakers',
  'blue-green deploys', 'canary releases', 'feature flags', 'server-side apply', 'Helm charts', 'Kubernetes HPA',
  'a transactional outbox', 'optimistic locking', 'advisory locks', 'row-level security', 'WAL archiving',
];
const QUALITIES = [
  'p99 latency', 'write throughput', 'cold-start time', 'memory footprint', 'error budget', 'cost per request',
  'replication lag', 'tail latency', 'availability', 'data freshness', 'query fan-out', 'lock contention',
];
const REASONS = [
  'it keeps the failure domain small', 'the team already operates it', 'it halves the tail latency',
  'vendor lock-in is a real concern', 'the compliance review requires it', 'it removes a network hop',
  'retries were causing duplicate charges', 'the current schema cannot evolve safely', 'on-call load is too high',
  'it survives a zone outage', 'the budget for next quarter is fixed', 'customers in the EU need data residency',
  'the benchmark showed a clear win', 'debugging the old path took days', 'it simplifies the migration plan',
];
const TEAMS = ['platform team', 'payments squad', 'SRE on-call', 'data team', 'security team', 'mobile team', 'growth team'];
const LIMITS = ['50 ms', '200 ms', '1 second', '10k requests per second', '2 GiB of memory', '5 minutes', '99.95%', '30 days', '256 KiB', '3 retries'];
const VERBS = ['migrate', 'shard', 'cache', 'replicate', 'throttle', 'deprecate', 'rewrite', 'partition', 'encrypt', 'batch'];
const INCIDENTS = [
  'a connection storm', 'a certificate expiry', 'a runaway cron job', 'a schema migration lock', 'a DNS outage',
  'a memory leak in the worker pool', 'a hot partition', 'a misconfigured load balancer', 'a thundering herd after deploy',
];

type Pick = <T>(items: readonly T[]) => T;

const TEMPLATES: readonly ((pick: Pick) => string)[] = [
  (p) => `Decision: the ${p(SERVICES)} will move to ${p(DATASTORES)} because ${p(REASONS)}.`,
  (p) => `We decided to use ${p(TECH)} between the ${p(SERVICES)} and the ${p(SERVICES)}, since ${p(REASONS)}.`,
  (p) => `Constraint: the ${p(SERVICES)} must keep its ${p(QUALITIES)} under ${p(LIMITS)}.`,
  (p) => `The ${p(SERVICES)} may never write to ${p(DATASTORES)} directly; it goes through the ${p(SERVICES)}.`,
  (p) => `Risk: ${p(INCIDENTS)} in ${p(DATASTORES)} could take down the ${p(SERVICES)} during peak traffic.`,
  (p) => `If ${p(DATASTORES)} fails over, the ${p(SERVICES)} may lose writes because ${p(REASONS)}.`,
  (p) => `Pattern: wrap every call from the ${p(SERVICES)} to ${p(DATASTORES)} in ${p(TECH)}.`,
  (p) => `Lesson from the incident: ${p(INCIDENTS)} hit the ${p(SERVICES)}; next time ${p(VERBS)} earlier and alert on ${p(QUALITIES)}.`,
  (p) => `Fact: the ${p(SERVICES)} stores its state in ${p(DATASTORES)} and is owned by the ${p(TEAMS)}.`,
  (p) => `The ${p(TEAMS)} prefers ${p(TECH)} over ad-hoc scripts for the ${p(SERVICES)}.`,
  (p) => `Task: ${p(VERBS)} the ${p(SERVICES)} tables in ${p(DATASTORES)} before the next release.`,
  (p) => `Context: the ${p(TEAMS)} is investigating ${p(QUALITIES)} regressions in the ${p(SERVICES)} after ${p(INCIDENTS)}.`,
  (p) => `To protect ${p(QUALITIES)}, the ${p(SERVICES)} will ${p(VERBS)} requests to ${p(DATASTORES)} using ${p(TECH)}.`,
  (p) => `Open question for the ${p(TEAMS)}: should the ${p(SERVICES)} ${p(VERBS)} its data in ${p(DATASTORES)}, given that ${p(REASONS)}?`,
];

const TRACKERS = ['OPS', 'PLAT', 'PAY', 'SEC', 'DATA', 'RFC'];
// The running number makes every sentence unique, so exact-search baselines have no ties to break.
const REFERENCES: readonly ((pick: Pick, id: number) => string)[] = [
  (p, id) => ` (ticket ${p(TRACKERS)}-${id})`,
  (p, id) => ` Tracked in ${p(TRACKERS)}-${id}.`,
  (p, id) => ` See ${p(TRACKERS)}-${id} for the discussion.`,
  (p, id) => ` Raised by the ${p(TEAMS)} in ${p(TRACKERS)}-${id}.`,
];

/** `n` distinct sentences, the same for the same `(n, seed)`; a prefix of a longer corpus with the same seed. */
export function syntheticCorpus(n: number, seed: number): string[] {
  const random = seededRandom(seed);
  const pick: Pick = (items) => items[Math.floor(random() * items.length)] as (typeof items)[number];
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(pick(TEMPLATES)(pick) + pick(REFERENCES)(pick, 1000 + i));
  return out;
}
