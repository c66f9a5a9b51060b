// Locates kube-apiserver and etcd: KUBEBUILDER_ASSETS first, then the cache that
// scripts/k8s-assets.sh fills. Tests skip (naming the missing binary) unless
// HYPHAE_TEST_REQUIRE=all, which turns absence into a failure.
import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { skipTier } from '../test-tiers.js';

export interface K8sAssets {
  dir: string | undefined;
  kubeApiserver: string | undefined;
  etcd: string | undefined;
  /** Binaries not found, by name; empty when both are present. */
  missing: string[];
}

export function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function assetDirs(): string[] {
  const dirs: string[] = [];
  if (process.env.KUBEBUILDER_ASSETS) dirs.push(process.env.KUBEBUILDER_ASSETS);
  dirs.push(process.env.HYPHAE_ASSETS_DIR ?? join(homedir(), '.cache', 'hyphae', 'k8s-assets'));
  return dirs;
}

export function findK8sAssets(): K8sAssets {
  const find = (bin: string): string | undefined => assetDirs().map((d) => join(d, bin)).find(executable);
  const kubeApiserver = find('kube-apiserver');
  const etcd = find('etcd');
  const missing = [kubeApiserver ? undefined : 'kube-apiserver', etcd ? undefined : 'etcd'].filter((m): m is string => m !== undefined);
  return { dir: kubeApiserver ? join(kubeApiserver, '..') : undefined, kubeApiserver, etcd, missing };
}

/** Skip reason for describe.skipIf, or undefined when the tier can run; throws under HYPHAE_TEST_REQUIRE=all. */
export function k8sSkipReason(): string | undefined {
  const assets = findK8sAssets();
  if (assets.missing.length === 0) return undefined;
  const missing = assets.missing.join(' and ');
  skipTier('k8s', missing);
  return `missing ${missing}`;
}
