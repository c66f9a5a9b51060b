// Locates promtool and prometheus: HYPHAE_PROMETHEUS_DIR, then the cache scripts/prometheus-assets.sh
// fills (npm run test:setup runs it), then PATH. Tests skip naming the missing binary unless
// HYPHAE_TEST_REQUIRE=all.
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { executable } from '../k8s/assets.js';
import { skipTier } from '../test-tiers.js';

/** The Go module version scripts/prometheus-assets.sh builds by default. */
export const PROMETHEUS_MODULE_VERSION = 'v0.316.0';

export type PrometheusBinary = 'promtool' | 'prometheus';

export function findPrometheusBinary(name: PrometheusBinary): string | undefined {
  const cacheRoot = process.env.HYPHAE_CACHE_DIR ?? join(homedir(), '.cache', 'hyphae');
  const dirs = [
    ...(process.env.HYPHAE_PROMETHEUS_DIR ? [process.env.HYPHAE_PROMETHEUS_DIR] : []),
    join(cacheRoot, `prometheus-${PROMETHEUS_MODULE_VERSION}`),
    ...(process.env.PATH ?? '').split(delimiter).filter((d) => d !== ''),
  ];
  return dirs.map((d) => join(d, name)).find(executable);
}

/** Skip reason for describe.skipIf, or undefined when the binary is there; throws under HYPHAE_TEST_REQUIRE=all. */
export function prometheusSkipReason(name: PrometheusBinary): string | undefined {
  if (findPrometheusBinary(name)) return undefined;
  skipTier('monitoring', name);
  return `missing ${name}`;
}
