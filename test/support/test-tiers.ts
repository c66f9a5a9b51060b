/**
 * The test tiers that need a binary a machine may lack, how their files skip when it is absent, and
 * the one command that provisions them all. A skipping file logs one marker line; the skipped-tiers
 * reporter (vitest.config.ts) turns the markers into the summary `npm test` ends with.
 */
export type TestTier = 'nats' | 'postgres' | 'k8s' | 'chart' | 'monitoring' | 'conformance' | 'browser';

export const TEST_TIERS: Readonly<Record<TestTier, string>> = {
  nats: 'NATS: gossip across replicas, embedding workers (nats-server)',
  postgres: 'native PostgreSQL: concurrency, faults, clustered mode (PostgreSQL 18 + pgvector)',
  k8s: 'operator loop: a real kube-apiserver + etcd',
  chart: 'Helm chart: the real helm',
  monitoring: 'Prometheus rules: promtool (built from the Prometheus Go module)',
  conformance: 'the official MCP conformance suite (needs Node ≥ 22)',
  browser: 'web console in a real browser: Debian chromium (apt-get install chromium)',
};

/** Builds or fetches every tier's binaries into ~/.cache/hyphae, where the tests look for them. */
export const PROVISION_COMMAND = 'npm run test:setup';

const MARKER = new RegExp(`^skipping tier (${Object.keys(TEST_TIERS).join('|')}): (.*) not found`, 'm');

/**
 * For `describe.skipIf`: logs why `tier` skips and returns true; under HYPHAE_TEST_REQUIRE=all
 * (CI) the absence fails the run instead. `missing` names what was not found.
 */
export function skipTier(tier: TestTier, missing: string): true {
  if (process.env.HYPHAE_TEST_REQUIRE === 'all') {
    throw new Error(`${missing} is required (HYPHAE_TEST_REQUIRE=all) but was not found; \`${PROVISION_COMMAND}\` provisions it`);
  }
  console.warn(`skipping tier ${tier}: ${missing} not found; \`${PROVISION_COMMAND}\` provisions it`);
  return true;
}

/** The tier a logged line says was skipped, with what it lacked. */
export function parseSkipMarker(line: string): { readonly tier: TestTier; readonly missing: string } | undefined {
  const match = MARKER.exec(line);
  return match === null ? undefined : { tier: match[1] as TestTier, missing: match[2] ?? '' };
}
