import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { SkippedTiersReporter } from './test/support/skipped-tiers-reporter.js';
import { testFilesByTier } from './test/support/test-projects.js';

// Seven projects, named for what they run (docs/testing.md): `unit` (server code and cross-module
// tests in one Node process: PGlite, servers on loopback), `integration` (the files that start
// another process: native PostgreSQL, nats-server, Chromium, promtool, git, the `hyphae`
// executable; test/support/test-projects.ts tells them apart by their imports), `conformance` (the
// official MCP suite against `hyphae serve`, on Node 24), `operator` (pure operator logic), `k8s`
// (real kube-apiserver + etcd) and `chart` (real helm). `npm test` runs all but `e2e`. Files whose
// binary is absent (nats-server, native PostgreSQL, Chromium, promtool, kube-apiserver/etcd, helm,
// a Node ≥ 22) skip, unless HYPHAE_TEST_REQUIRE=all; the run then ends naming each skipped tier and
// `npm run test:setup`.
const OTHER_PROJECTS = ['test/k8s/', 'test/chart/', 'test/e2e/', 'test/mcp/official-conformance.test.ts'];
const SERVER_TESTS = testFilesByTier(fileURLToPath(new URL('.', import.meta.url)), ['src', 'test'], OTHER_PROJECTS);
const TEMPLATES = ['test/support/global-setup.ts'];

export default defineConfig({
  test: {
    reporters: ['default', new SkippedTiersReporter()],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'unit', include: [...SERVER_TESTS.unit], globalSetup: TEMPLATES } },
      { extends: true, test: { name: 'integration', include: [...SERVER_TESTS.integration], globalSetup: TEMPLATES } },
      { extends: true, test: { name: 'conformance', include: ['test/mcp/official-conformance.test.ts'] } },
      { extends: true, test: { name: 'operator', include: ['operator/**/*.test.ts'], exclude: ['node_modules/**'] } },
      { extends: true, test: { name: 'k8s', include: ['test/k8s/**/*.test.ts'], fileParallelism: false } },
      { extends: true, test: { name: 'chart', include: ['test/chart/**/*.test.ts'], fileParallelism: false } },
      // A real node (scripts/local-cluster.sh): `npm run test:e2e` only, never part of `npm test`.
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], fileParallelism: false } },
    ],
  },
});
