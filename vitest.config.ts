import { defineConfig } from 'vitest/config';

// Five tiers: `unit` (server code and cross-module tests), `conformance` (the official MCP suite
// against `hyphae serve`, on Node 24), `operator` (pure operator logic), `k8s` (real kube-apiserver
// + etcd) and `chart` (real helm). `npm test` runs all five; the last two skip themselves, naming
// the missing binary, unless HYPHAE_TEST_REQUIRE=all.
export default defineConfig({
  test: {
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
