// The `helm upgrade --install` that scripts/install-from-checkout.sh prints, rendered by the real
// helm with exactly its flags: the operator and the HyphaeMesh run the images the script built and
// loaded (hyphae.local/…:<version>-local.<commit>, a string tag, IfNotPresent), never a registry's.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shellWords } from '../support/release-sources.js';
import { CHART_DIR, KUBE_VERSION, findObject, helmOk, helmSkipReason, parseManifests } from '../support/k8s/helm.js';

const ROOT = join(CHART_DIR, '..', '..');
const skip = helmSkipReason();

/** The script's printed helm command, from a --dry-run with stand-ins for docker, kind and helm. */
function printedHelmInstall(bin: string): string[] {
  for (const tool of ['dirname', 'sed', 'head', 'git', 'date', 'mktemp', 'rm']) {
    const system = ['/usr/bin', '/bin'].map((d) => join(d, tool)).find((p) => existsSync(p));
    if (system !== undefined) symlinkSync(system, join(bin, tool));
  }
  for (const tool of ['docker', 'kind', 'helm']) {
    writeFileSync(join(bin, tool), '#!/bin/bash\n');
    chmodSync(join(bin, tool), 0o755);
  }
  const r = spawnSync('/bin/bash', [join(ROOT, 'scripts', 'install-from-checkout.sh'), '--dry-run', '--cluster', 'kind'], { env: { PATH: bin, HOME: bin }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  const line = r.stdout.split('\n').find((l) => l.startsWith('+ helm upgrade --install '));
  if (line === undefined) throw new Error(`no helm command in:\n${r.stdout}`);
  return shellWords(line.slice(2));
}

describe.skipIf(skip !== undefined)('the install from a checkout, rendered by helm', () => {
  const bin = mkdtempSync(join(tmpdir(), 'hyphae-install-render-'));
  afterAll(() => rmSync(bin, { recursive: true, force: true }));

  it('runs the operator and the mesh on the images the script loaded', async () => {
    const words = printedHelmInstall(bin);
    expect(words.slice(0, 5)).toEqual(['helm', 'upgrade', '--install', 'hyphae', 'charts/hyphae']);
    const flags = words.slice(5).filter((w) => w !== '--create-namespace');
    const tag = flags[flags.indexOf('--set-string') + 1]?.replace('image.tag=', '') ?? '';
    expect(tag).toMatch(/^\d+\.\d+\.\d+-local\.[0-9a-f]+$/);
    const objects = parseManifests(await helmOk(['template', 'hyphae', CHART_DIR, '--kube-version', KUBE_VERSION, ...flags]));

    const operator = findObject(objects, 'Deployment') as { spec: { template: { spec: { containers: Array<{ image: string; imagePullPolicy: string }> } } } } | undefined;
    expect(operator?.spec.template.spec.containers[0]).toMatchObject({ image: `hyphae.local/hyphae:${tag}`, imagePullPolicy: 'IfNotPresent' });
    const mesh = findObject(objects, 'HyphaeMesh') as { spec: { image: unknown; postgres: { image: string } } } | undefined;
    expect(mesh?.spec.image).toEqual({ repository: 'hyphae.local/hyphae', tag, pullPolicy: 'IfNotPresent' });
    expect(mesh?.spec.postgres.image).toBe(`hyphae.local/postgres:${tag}`);
  });
});
