import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { InvalidArgumentError } from './errors.js';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      http: { host: '127.0.0.1', port: 8787, allowedHosts: [] },
      grpc: { port: 50051 },
      database: { dataDir: './.hyphae', embedded: true, poolMax: 10, acquireTimeoutMs: 5000, statementTimeoutMs: 30000 },
      embed: { kind: 'minilm' },
      log: { level: 'info' },
      requests: { bodyLimitBytes: 262144, rateLimitPerMinute: 600, failedAuthPerMinute: 30 },
      limits: { maxBeaconsPerAgent: 200, maxStreamsPerKey: 10, maxStreamsPerProcess: 1000, maxCellsPerTenant: 1_000_000, maxOpenSessionsPerAgent: 100 },
      gossip: { maxInboxDiffs: 10000 },
      worker: { port: 8788 },
    });
    expect(config.database.databaseUrl).toBeUndefined();
    // Unset: KNN_DEFAULTS, the values the README documents.
    expect([config.knn.efSearch, config.knn.iterativeScan, config.knn.maxScanTuples]).toEqual([40, 'relaxed_order', 20000]);
  });

  it('reads the HNSW scan settings', () => {
    const config = loadConfig({ HYPHAE_HNSW_EF_SEARCH: '100', HYPHAE_HNSW_ITERATIVE_SCAN: 'strict_order', HYPHAE_HNSW_MAX_SCAN_TUPLES: '50000' });
    expect([config.knn.efSearch, config.knn.iterativeScan, config.knn.maxScanTuples]).toEqual([100, 'strict_order', 50000]);
  });

  it('turns the gRPC surface off with HYPHAE_GRPC_PORT=0 and refuses a port out of range', () => {
    expect(loadConfig({ HYPHAE_GRPC_PORT: '0' }).grpc.port).toBe(0);
    expect(loadConfig({ HYPHAE_GRPC_PORT: '6000' }).grpc.port).toBe(6000);
    expect(() => loadConfig({ HYPHAE_GRPC_PORT: '70000' })).toThrow(/HYPHAE_GRPC_PORT/);
  });

  it('lets flags override the environment', () => {
    const config = loadConfig({ HYPHAE_PORT: '9000', HYPHAE_EMBEDDER: 'hash' }, { port: '9100', dataDir: '/tmp/x' });
    expect(config.http.port).toBe(9100);
    expect(config.database.dataDir).toBe('/tmp/x');
    expect(config.embed.kind).toBe('hash');
  });

  it('parses lists and switches to PostgreSQL when a URL is set', () => {
    const config = loadConfig({
      HYPHAE_ALLOWED_HOSTS: 'hyphae.example.com, api.example.com',
      HYPHAE_DATABASE_URL: 'postgres://u:p@db:5432/hyphae',
    });
    expect(config.http.allowedHosts).toEqual(['hyphae.example.com', 'api.example.com']);
    expect(config.database.embedded).toBe(false);
  });

  it.each([
    ['HYPHAE_DB_POOL_MAX', '0'],
    ['HYPHAE_DB_ACQUIRE_TIMEOUT_MS', 'soon'],
    ['HYPHAE_DB_STATEMENT_TIMEOUT_MS', '-1'],
    ['HYPHAE_HNSW_EF_SEARCH', '0'],
    ['HYPHAE_HNSW_EF_SEARCH', '1001'],
    ['HYPHAE_HNSW_ITERATIVE_SCAN', 'sideways'],
    ['HYPHAE_HNSW_MAX_SCAN_TUPLES', '0'],
    ['HYPHAE_PORT', 'eighty'],
    ['HYPHAE_PORT', '70000'],
    ['HYPHAE_EMBEDDER', 'word2vec'],
    ['HYPHAE_DATABASE_URL', 'mysql://x'],
    ['HYPHAE_NATS_URL', 'not a url'],
    ['HYPHAE_LOG_LEVEL', 'loud'],
  ])('refuses %s=%s naming the variable', (name, value) => {
    let caught: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidArgumentError);
    expect((caught as Error).message).toContain(name);
  });

  it('requires the endpoint of a remote embedder', () => {
    expect(() => loadConfig({ HYPHAE_EMBEDDER: 'openai' })).toThrow(/HYPHAE_EMBED_URL/);
    expect(() => loadConfig({ HYPHAE_EMBEDDER: 'nats' })).toThrow(/HYPHAE_NATS_URL/);
  });

  it('reads which proxies to trust and the metrics token', () => {
    expect(loadConfig({}).http.trustProxy).toBe(false);
    expect(loadConfig({ HYPHAE_TRUST_PROXY: '2' }).http.trustProxy).toBe(2);
    expect(loadConfig({ HYPHAE_TRUST_PROXY: '10.0.0.0/8,127.0.0.1' }).http.trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(() => loadConfig({ HYPHAE_TRUST_PROXY: 'everyone' })).toThrow(/HYPHAE_TRUST_PROXY/);
    expect(loadConfig({ HYPHAE_TRUST_PROXY: '1' }).http.trustProxy).toBe(1);
    expect(loadConfig({ HYPHAE_TRUST_PROXY: 'fd00::/8' }).http.trustProxy).toEqual(['fd00::/8']);
    expect(() => loadConfig({ HYPHAE_METRICS_TOKEN: 'short' })).toThrow(/HYPHAE_METRICS_TOKEN/);
  });

  it('refuses HYPHAE_TRUST_PROXY=true, whose client address the client itself writes, asking for a hop count or CIDRs', () => {
    const refusal = (): unknown => loadConfig({ HYPHAE_TRUST_PROXY: 'true' });
    expect(refusal).toThrow(InvalidArgumentError);
    expect(refusal).toThrow(/HYPHAE_TRUST_PROXY: true is refused/);
    expect(refusal).toThrow(/number of proxies in front of Hyphae \(e\.g\. 1\) or their addresses\/CIDRs/);
  });

  it('keeps the A2A surface off unless HYPHAE_A2A turns it on', () => {
    expect(loadConfig({}).http.a2a).toBe(false);
    expect(loadConfig({ HYPHAE_A2A: '1' }).http.a2a).toBe(true);
    expect(loadConfig({ HYPHAE_A2A: 'true' }).http.a2a).toBe(true);
    expect(loadConfig({ HYPHAE_A2A: '0' }).http.a2a).toBe(false);
    expect(() => loadConfig({ HYPHAE_A2A: 'yes' })).toThrow(/HYPHAE_A2A/);
  });

  it('serves the web console wherever it is bound unless HYPHAE_CONSOLE is off', () => {
    expect(loadConfig({}).http.console).toBe(true);
    expect(loadConfig({ HYPHAE_HOST: '0.0.0.0' }).http.console).toBe(true);
    expect(loadConfig({ HYPHAE_CONSOLE: 'off' }).http.console).toBe(false);
    expect(loadConfig({ HYPHAE_CONSOLE: '0' }).http.console).toBe(false);
    expect(() => loadConfig({ HYPHAE_CONSOLE: 'maybe' })).toThrow(/HYPHAE_CONSOLE/);
  });

  it('declares the Claude Code channel unless HYPHAE_MCP_CHANNEL is off, and reads its trust gate and pace', () => {
    const defaults = loadConfig({});
    expect([defaults.channel.enabled, defaults.channel.minTrust, defaults.channel.maxPerMinute]).toEqual([true, 0, 6]);
    for (const off of ['off', '0', 'false']) expect(loadConfig({ HYPHAE_MCP_CHANNEL: off }).channel.enabled).toBe(false);
    expect(loadConfig({ HYPHAE_MCP_CHANNEL: 'on' }).channel.enabled).toBe(true);
    expect(loadConfig({ HYPHAE_MCP_CHANNEL_MIN_TRUST: '0.5', HYPHAE_MCP_CHANNEL_MAX_PER_MINUTE: '0' }).channel).toMatchObject({ minTrust: 0.5, maxPerMinute: 0 });
    for (const [name, bad] of [
      ['HYPHAE_MCP_CHANNEL', 'maybe'],
      ['HYPHAE_MCP_CHANNEL_MIN_TRUST', '1.5'],
      ['HYPHAE_MCP_CHANNEL_MIN_TRUST', '-0.1'],
      ['HYPHAE_MCP_CHANNEL_MIN_TRUST', 'high'],
      ['HYPHAE_MCP_CHANNEL_MAX_PER_MINUTE', '2.5'],
      ['HYPHAE_MCP_CHANNEL_MAX_PER_MINUTE', '-1'],
      ['HYPHAE_MCP_CHANNEL_MAX_PER_MINUTE', '601'],
    ] as const) {
      expect(() => loadConfig({ [name]: bad }), `${name}=${bad}`).toThrow(new RegExp(name));
    }
  });

  it('reads the near-duplicate similarity: unset is the embedder default, 0 and off disable, anything else outside (0, 1] is refused', () => {
    expect(loadConfig({}).cells.restatementSimilarity).toBeUndefined();
    expect(loadConfig({ HYPHAE_DEDUP_SIMILARITY: '0.9' }).cells.restatementSimilarity).toBe(0.9);
    expect(loadConfig({ HYPHAE_DEDUP_SIMILARITY: '1' }).cells.restatementSimilarity).toBe(1);
    expect(loadConfig({ HYPHAE_DEDUP_SIMILARITY: 'off' }).cells.restatementSimilarity).toBeNull();
    expect(loadConfig({ HYPHAE_DEDUP_SIMILARITY: '0' }).cells.restatementSimilarity).toBeNull();
    for (const bad of ['1.5', '-0.2', 'high', '0,9']) expect(() => loadConfig({ HYPHAE_DEDUP_SIMILARITY: bad }), bad).toThrow(InvalidArgumentError);
  });

  it('reads the default retention per cell type: unset keeps every type, a bad entry names the variable', () => {
    expect(loadConfig({}).cells.retentionDefaults).toEqual({});
    expect(loadConfig({ HYPHAE_RETENTION_DEFAULTS: 'Task=30d,Context=12h' }).cells.retentionDefaults).toEqual({ Task: 2_592_000, Context: 43_200 });
    for (const bad of ['Task=30', 'Chore=1d', 'Task=0d', 'Task=1d,Task=2d']) {
      expect(() => loadConfig({ HYPHAE_RETENTION_DEFAULTS: bad }), bad).toThrow(/HYPHAE_RETENTION_DEFAULTS/);
    }
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ HYPHAE_DATABASE_URL: '' }).database.embedded).toBe(true);
  });
});
