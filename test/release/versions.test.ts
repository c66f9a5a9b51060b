// The version is set in package.json alone; scripts/version-sync.mjs copies it everywhere else.
// Here: every copy is in step, `--check` agrees, and a sync of a bumped copy of the repository's
// files brings each of them to the new version.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DOCS_WITH_RELEASE_BLOCKS, VERSION_IN_TEXT, packageVersion, readRepoFile, releaseBlocks, repoRoot } from '../support/release-sources.js';

const SYNC = join(repoRoot, 'scripts', 'version-sync.mjs');
const CRD = 'crds/hyphae.dev_hyphaemeshes.yaml';

interface Copies {
  chartVersion: string;
  appVersion: string;
  postgresImageTag: string;
  crdImageTag: string;
  chartCrdImageTag: string;
  crdPostgresImageTag: string;
  chartCrdPostgresImageTag: string;
  blocks: Record<string, string[]>;
}

/** Every copy of the version in a tree laid out like the repository. */
function copiesIn(read: (path: string) => string): Copies {
  const chart = parse(read('charts/hyphae/Chart.yaml')) as { version: string; appVersion: string };
  const values = parse(read('charts/hyphae/values.yaml')) as { mesh: { postgres: { image: string } } };
  type SpecProperties = { image: { properties: { tag: { default: string } } }; postgres: { properties: { image: { default: string } } } };
  const specOf = (path: string): SpecProperties | undefined => {
    const crd = parse(read(path)) as { spec: { versions: Array<{ schema: { openAPIV3Schema: { properties: { spec: { properties: SpecProperties } } } } }> } };
    return crd.spec.versions[0]?.schema.openAPIV3Schema.properties.spec.properties;
  };
  const crdTag = (path: string): string => specOf(path)?.image.properties.tag.default ?? '';
  const crdPostgresTag = (path: string): string => specOf(path)?.postgres.properties.image.default.split(':').pop() ?? '';
  const blocks: Record<string, string[]> = {};
  for (const doc of DOCS_WITH_RELEASE_BLOCKS) {
    for (const [name, text] of releaseBlocks(read(doc))) blocks[`${doc} ${name}`] = [...new Set(text.match(VERSION_IN_TEXT) ?? [])];
  }
  return {
    chartVersion: chart.version,
    appVersion: chart.appVersion,
    postgresImageTag: values.mesh.postgres.image.split(':').pop() ?? '',
    crdImageTag: crdTag(CRD),
    chartCrdImageTag: crdTag(`charts/hyphae/${CRD}`),
    crdPostgresImageTag: crdPostgresTag(CRD),
    chartCrdPostgresImageTag: crdPostgresTag(`charts/hyphae/${CRD}`),
    blocks,
  };
}

function expectAllAt(copies: Copies, version: string): void {
  expect({ ...copies, blocks: undefined }).toEqual({
    chartVersion: version,
    appVersion: version,
    postgresImageTag: version,
    crdImageTag: version,
    chartCrdImageTag: version,
    crdPostgresImageTag: version,
    chartCrdPostgresImageTag: version,
    blocks: undefined,
  });
  for (const [block, versions] of Object.entries(copies.blocks)) expect(versions, block).toEqual([version]);
}

/** server.json's version, its npm package's version and its image's tag. */
function serverJsonVersions(text: string): string[] {
  const entry = JSON.parse(text) as { version: string; packages: Array<{ registryType: string; identifier: string; version?: string }> };
  const npm = entry.packages.find((p) => p.registryType === 'npm');
  const oci = entry.packages.find((p) => p.registryType === 'oci');
  return [entry.version, npm?.version ?? '', oci?.identifier.split(':').pop() ?? ''];
}

function sync(root: string, ...args: string[]): { code: number; output: string } {
  const r = spawnSync(process.execPath, [SYNC, '--root', root, ...args], { encoding: 'utf8' });
  return { code: r.status ?? 1, output: `${r.stdout}${r.stderr}` };
}

describe('release version', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'hyphae-version-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('is the same in package.json, the chart, its default images, the CRD and the install commands', () => {
    const copies = copiesIn(readRepoFile);
    expectAllAt(copies, packageVersion());
    // The blocks the install tests read are there, each naming the version.
    expect(Object.keys(copies.blocks).sort()).toEqual([
      'README.md install',
      'README.md self-built',
      'README.md verify',
      'docs/helm.md buildah',
      'docs/helm.md images',
      'docs/helm.md install',
      'docs/helm.md self-built',
      'docs/helm.md verify',
    ]);
  });

  it('is the same in server.json (the MCP registry entry, its npm package, its image tag)', () => {
    const version = packageVersion();
    expect(serverJsonVersions(readRepoFile('server.json'))).toEqual([version, version, version]);
  });

  it('passes version-sync --check', () => {
    const r = sync(repoRoot, '--check');
    expect(r.output).toContain(`every copy is ${packageVersion()}`);
    expect(r.code).toBe(0);
  });

  it('is carried everywhere by version-sync after a bump of package.json', () => {
    const root = join(scratch, 'repo');
    for (const path of ['package.json', 'charts/hyphae', 'crds', 'operator/src', 'README.md', 'docs/helm.md', 'server.json']) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      cpSync(join(repoRoot, path), join(root, path), { recursive: true });
    }
    symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'));
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    writeFileSync(join(root, 'package.json'), JSON.stringify({ ...pkg, version: '9.8.7-rc.1' }, null, 2));

    const stale = sync(root, '--check');
    expect(stale.code).toBe(1);
    expect(stale.output).toContain('charts/hyphae/Chart.yaml, charts/hyphae/values.yaml, operator/src/crd/hyphae-mesh-schema.ts, README.md, docs/helm.md, server.json');

    const written = sync(root);
    expect(written.code, written.output).toBe(0);
    const read = (path: string): string => readFileSync(join(root, path), 'utf8');
    expectAllAt(copiesIn(read), '9.8.7-rc.1');
    expect(read(`charts/hyphae/${CRD}`)).toBe(read(CRD));
    expect(serverJsonVersions(read('server.json'))).toEqual(['9.8.7-rc.1', '9.8.7-rc.1', '9.8.7-rc.1']);
    expect(sync(root, '--check').code).toBe(0);
    // Only version strings changed: the chart's values differ from the repository's in one line.
    const changed = read('charts/hyphae/values.yaml').split('\n').filter((line, i) => line !== readRepoFile('charts/hyphae/values.yaml').split('\n')[i]);
    expect(changed).toEqual(['    image: ghcr.io/hyphae-dev/postgres:9.8.7-rc.1']);
  });
});
