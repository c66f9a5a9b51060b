import { defineConfig } from 'vitest/config';
import { SkippedTiersReporter } from './test/support/skipped-tiers-reporter.js';

// Five projects: `unit` (server code and cross-module tests), `conformance` (the official MCP suite
// against `hyphae serve`, on Node 24), `operator` (pure operator logic), `k8s` (real kube-apiserver
// + etcd) and `chart` (real helm). `npm test` runs all five. Files whose binary is absent
// (nats-server, native PostgreSQL, kube-apiserver/etcd, helm, a Node ≥ 22) skip, unless
// HYPHAE_TEST_REQUIRE=all; the run then ends naming each skipped tier and `npm run test:setup`.
export default defineConfig({
  test: {
    reporters: ['default', new SkippedTiersReporter()],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ['test/k8s/**', 'test/chart/**', 'test/e2e/**', 'test/mcp/official-conformance.test.ts', 'node_modules/**'],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
      { extends: true, test: { name: 'conformance', include: ['test/mcp/official-conformance.test.ts'] } },
      { extends: true, test: { name: 'operator', include: ['operator/**/*.test.ts'], exclude: ['node_modules/**'] } },
      { extends: true, test: { name: 'k8s', include: ['test/k8s/**/*.test.ts'], fileParallelism: false } },
      { extends: true, test: { name: 'chart', include: ['test/chart/**/*.test.ts'], fileParallelism: false } },
      // A real node (scripts/local-cluster.sh): `npm run test:e2e` only, never part of `npm test`.
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], fileParallelism: false } },
    ],
  },
});
