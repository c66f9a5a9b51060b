// Locates and runs the real `helm`: PATH first, then the folders scripts/k8s-assets.sh fills
// (KUBEBUILDER_ASSETS, HYPHAE_ASSETS_DIR or ~/.cache/hyphae/k8s-assets). Helm's own state lives
// in a throwaway folder so tests never touch the user's repositories or plugins.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { assetDirs, executable } from './assets.js';
import { skipTier } from '../test-tiers.js';

export const CHART_DIR = fileURLToPath(new URL('../../../charts/hyphae', import.meta.url));
/** The kube-apiserver version the test assets build; `helm template` assumes it. */
export const KUBE_VERSION = '1.34.4';

export interface RenderedObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function findHelm(): string | undefined {
  const pathDirs = (process.env.PATH ?? '').split(delimiter).filter((d) => d !== '');
  return [...pathDirs, ...assetDirs()].map((d) => join(d, 'helm')).find(executable);
}

/** Skip reason for describe.skipIf, or undefined when helm is present; throws under HYPHAE_TEST_REQUIRE=all. */
export function helmSkipReason(): string | undefined {
  if (findHelm()) return undefined;
  skipTier('chart', 'helm');
  return 'missing helm';
}

let helmHome: string | undefined;

export function runHelm(args: readonly string[], kubeconfigPath?: string): Promise<HelmResult> {
  const helm = findHelm();
  if (!helm) throw new Error('helm not found');
  helmHome ??= mkdtempSync(join(tmpdir(), 'hyphae-helm-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: helmHome,
    HELM_CACHE_HOME: join(helmHome, 'cache'),
    HELM_CONFIG_HOME: join(helmHome, 'config'),
    HELM_DATA_HOME: join(helmHome, 'data'),
    KUBECONFIG: kubeconfigPath ?? join(helmHome, 'no-kubeconfig'),
  };
  return new Promise((resolve) => {
    execFile(helm, [...args], { env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** `helm` that must succeed; the error carries helm's stderr. */
export async function helmOk(args: readonly string[], kubeconfigPath?: string): Promise<string> {
  const r = await runHelm(args, kubeconfigPath);
  if (r.code !== 0) throw new Error(`helm ${args.join(' ')} failed (${r.code}):\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

export const ciValueFiles = [
  'mesh-managed-values.yaml',
  'mesh-external-values.yaml',
  'mesh-cnpg-monitoring-values.yaml',
  'operator-ha-namespaced-values.yaml',
  'mesh-ha-backup-values.yaml',
  'mesh-restore-s3-values.yaml',
];

export function ciValues(file: string): string {
  return join(CHART_DIR, 'ci', file);
}

/** Helm flags for value files and --set pairs. */
export function valueArgs(files: readonly string[] = [], set: Record<string, string | number | boolean> = {}): string[] {
  return [...files.flatMap((f) => ['-f', f]), ...Object.entries(set).flatMap(([k, v]) => ['--set', `${k}=${String(v)}`])];
}

export function parseManifests(text: string): RenderedObject[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as RenderedObject | null)
    .filter((o): o is RenderedObject => o !== null && typeof o === 'object');
}

/** `helm template` of the chart, parsed. */
export async function renderChart(
  files: readonly string[] = [],
  set: Record<string, string | number | boolean> = {},
  opts: { release?: string; namespace?: string } = {},
): Promise<RenderedObject[]> {
  const out = await helmOk([
    'template',
    opts.release ?? 'hyphae',
    CHART_DIR,
    '--namespace',
    opts.namespace ?? 'hyphae',
    '--kube-version',
    KUBE_VERSION,
    ...valueArgs(files, set),
  ]);
  return parseManifests(out);
}

export function findObject(objects: readonly RenderedObject[], kind: string, name?: string): RenderedObject | undefined {
  return objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
}
