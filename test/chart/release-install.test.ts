// The install commands of README.md and docs/helm.md against the release workflow and the chart:
// `helm template` with exactly the flags of each documented `helm install` must name only images
// the release workflow pushes (the published install) or the documented commands build or copy
// (the self-built install), for the chart's own pods, the HyphaeMesh it renders and the pods the
// operator derives from it. And the published chart's digest pinning (scripts/release/pin-chart.mjs).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  DOCS_WITH_RELEASE_BLOCKS,
  canonicalImage,
  documentedImages,
  flagValues,
  packageVersion,
  readRepoFile,
  releaseBlocks,
  releaseWorkflow,
  repoRoot,
  shellCommands,
} from '../support/release-sources.js';
import { CHART_DIR, KUBE_VERSION, findObject, helmOk, helmSkipReason, parseManifests, renderChart } from '../support/k8s/helm.js';
import type { RenderedObject } from '../support/k8s/helm.js';
import { operatorObjectsFor } from './operator-desired.js';
import { podSpecOf } from './pod-security.js';

const skip = helmSkipReason();
const workflow = releaseWorkflow();
const version = packageVersion();
const chartName = (parse(readRepoFile('charts/hyphae/Chart.yaml')) as { name: string }).name;
const published = new Set(workflow.tagsFor(version));
const upstream = new Set(documentedImages().filter((i) => !i.fromReleasePipeline).map((i) => i.image));

interface MeshSpec {
  image: { repository: string; tag: string };
  postgres?: { image?: string };
  nats?: { image?: string };
}

/** Every image a rendering names: its pods' containers and the HyphaeMesh's images. */
function renderedImages(objects: readonly RenderedObject[]): string[] {
  const images = objects.flatMap((o) => {
    const pod = podSpecOf(o) as { containers: Array<{ image: string }>; initContainers?: Array<{ image: string }> } | undefined;
    return pod ? [...(pod.initContainers ?? []), ...pod.containers].map((c) => c.image) : [];
  });
  const mesh = findObject(objects, 'HyphaeMesh')?.spec as MeshSpec | undefined;
  if (mesh) images.push(`${mesh.image.repository}:${mesh.image.tag}`, ...[mesh.postgres?.image, mesh.nats?.image].filter((i): i is string => i !== undefined));
  return [...new Set(images.map(canonicalImage))].sort();
}

/** The images of the pods the operator creates for the rendered HyphaeMesh (the CRD's defaults applied). */
function derivedImages(objects: readonly RenderedObject[]): string[] {
  return renderedImages(operatorObjectsFor(objects));
}

/** `helm install RELEASE CHART FLAGS…` of a block, as [release, chart, flags]. */
function helmInstall(block: string): { release: string; chart: string; flags: string[] } {
  const installs = shellCommands(block).filter((w) => w[0] === 'helm' && w[1] === 'install');
  expect(installs).toHaveLength(1);
  const [, , release, chart, ...flags] = installs[0] as string[];
  return { release: release as string, chart: chart as string, flags };
}

/** `helm template` with an install's flags, the chart reference replaced by this checkout's chart. */
async function renderInstall(flags: readonly string[], chartDir = CHART_DIR): Promise<RenderedObject[]> {
  const withoutVersion = flags.filter((f, i) => f !== '--version' && flags[i - 1] !== '--version');
  return parseManifests(await helmOk(['template', 'hyphae', chartDir, '--kube-version', KUBE_VERSION, ...withoutVersion]));
}

describe('the release workflow', () => {
  it('builds every image the chart defaults to, for linux/amd64 and linux/arm64', () => {
    expect(workflow.platforms).toEqual(['linux/amd64', 'linux/arm64']);
    expect(workflow.images.map((i) => i.name).sort()).toEqual(['hyphae', 'postgres']);
    const values = parse(readRepoFile('charts/hyphae/values.yaml')) as { image: { repository: string; tag: string }; mesh: { postgres: { image: string } } };
    expect([...published].sort()).toEqual([`${values.image.repository}:${values.image.tag || version}`, values.mesh.postgres.image].sort());
    // Each build file exists where the workflow builds it from.
    for (const image of workflow.images) expect(() => readRepoFile(image.file), image.file).not.toThrow();
  });

  it('pushes the chart where the documented install pulls it from', () => {
    expect(workflow.chartPush).toBe(`oci://${workflow.chartRegistry}`);
  });

  it('is what docs/helm.md lists as the release pipeline’s images', () => {
    expect(documentedImages().filter((i) => i.fromReleasePipeline).map((i) => i.image).sort()).toEqual([...published].map(canonicalImage).sort());
    expect(upstream.size).toBeGreaterThan(0);
  });

  it('is what docs/helm.md’s buildah commands build, for both architectures', () => {
    const commands = shellCommands(releaseBlocks(readRepoFile('docs/helm.md')).get('buildah') ?? '');
    const builds = commands.filter((w) => w[0] === 'buildah' && w[1] === 'bud');
    expect(builds.map((w) => [flagValues(w, '-f', '--file')[0], w.at(-1)]).sort()).toEqual(workflow.images.map((i) => [i.file, i.context]).sort());
    for (const words of builds) {
      expect(flagValues(words, '--platform')).toEqual([workflow.platforms.join(',')]);
      const manifest = flagValues(words, '--manifest')[0];
      expect(commands.some((w) => w[1] === 'manifest' && w[2] === 'push' && w.includes('--all') && w.includes(manifest as string)), `${manifest} pushed`).toBe(true);
    }
  });
});

describe.skipIf(skip !== undefined)('the documented installs', () => {
  it('chart defaults: every image is one the release workflow pushes', async () => {
    const objects = await renderChart([], { 'mesh.enabled': true });
    expect(renderedImages(objects).filter((i) => !published.has(i))).toEqual([]);
    expect(derivedImages(objects).filter((i) => !published.has(i) && !upstream.has(i))).toEqual([]);
  });

  for (const doc of DOCS_WITH_RELEASE_BLOCKS) {
    it(`${doc}: the published install names only images the release workflow pushes`, async () => {
      const { chart, flags } = helmInstall(releaseBlocks(readRepoFile(doc)).get('install') ?? '');
      expect(chart).toBe(`oci://${workflow.chartRegistry}/${chartName}`);
      expect(flagValues(flags, '--version')).toEqual([version]);
      const objects = await renderInstall(flags);
      expect(findObject(objects, 'HyphaeMesh')).toBeDefined();
      const rendered = renderedImages(objects);
      expect(rendered.length).toBeGreaterThan(0);
      expect(rendered.filter((i) => !published.has(i))).toEqual([]);
      // The pods the operator makes from it: ours, or the upstream images docs/helm.md names.
      expect(derivedImages(objects).filter((i) => !published.has(i) && !upstream.has(i))).toEqual([]);
    });

    it(`${doc}: the self-built install names only images its commands build or copy`, async () => {
      const commands = shellCommands(releaseBlocks(readRepoFile(doc)).get('self-built') ?? '');
      const builds = commands.filter((w) => w[0] === 'docker' && w[1] === 'buildx' && w[2] === 'build');
      expect(builds.length).toBe(workflow.images.length);
      const built = new Set<string>();
      for (const words of builds) {
        // The same file and context as the release workflow, both architectures, pushed.
        const file = flagValues(words, '-f', '--file')[0];
        const image = workflow.images.find((i) => i.file === file);
        expect(image, `${file} is built by the release workflow`).toBeDefined();
        expect(words.at(-1)).toBe(image?.context);
        expect(flagValues(words, '--platform')).toEqual([workflow.platforms.join(',')]);
        expect(words).toContain('--push');
        for (const tag of flagValues(words, '-t', '--tag')) built.add(canonicalImage(tag));
      }
      const copied = new Set<string>();
      for (const words of commands.filter((w) => w[0] === 'skopeo' && w[1] === 'copy')) {
        const [from, to] = words.filter((w) => w.startsWith('docker://')).map((w) => canonicalImage(w.slice('docker://'.length)));
        expect(upstream.has(from as string), `${from} is an upstream image docs/helm.md names`).toBe(true);
        copied.add(to as string);
      }
      const { chart, flags } = helmInstall(releaseBlocks(readRepoFile(doc)).get('self-built') ?? '');
      expect(chart).toBe('charts/hyphae');
      const objects = await renderInstall(flags);
      const available = (i: string): boolean => built.has(i) || copied.has(i);
      expect(renderedImages(objects).filter((i) => !available(i))).toEqual([]);
      expect(derivedImages(objects).filter((i) => !available(i))).toEqual([]);
    });
  }
});

describe.skipIf(skip !== undefined)('the published chart, pinned by digest', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'hyphae-pin-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const digest = { hyphae: `sha256:${'1a'.repeat(32)}`, postgres: `sha256:${'2b'.repeat(32)}` };
  const pin = (...args: string[]): { code: number; output: string } => {
    const r = spawnSync(process.execPath, [join(repoRoot, 'scripts/release/pin-chart.mjs'), '--chart', CHART_DIR, '--out', scratch, ...args], { encoding: 'utf8' });
    return { code: r.status ?? 1, output: `${r.stdout}${r.stderr}` };
  };
  const digestArgs = [`--digest`, `hyphae=${digest.hyphae}`, '--digest', `postgres=${digest.postgres}`];

  it('runs exactly the pushed images: repository:version@digest in every pod and in the HyphaeMesh', async () => {
    const r = pin('--registry', workflow.registry, '--version', version, ...digestArgs);
    expect(r.code, r.output).toBe(0);
    const pinnedChart = join(scratch, 'hyphae');
    await helmOk(['lint', '--strict', pinnedChart, '--kube-version', KUBE_VERSION]);
    const { flags } = helmInstall(releaseBlocks(readRepoFile('README.md')).get('install') ?? '');
    const objects = await renderInstall(flags, pinnedChart);
    const expected = [`${workflow.registry}/hyphae:${version}@${digest.hyphae}`, `${workflow.registry}/postgres:${version}@${digest.postgres}`];
    expect(renderedImages(objects)).toEqual(expected);
    expect((findObject(objects, 'HyphaeMesh')?.spec as MeshSpec).image.tag).toBe(`${version}@${digest.hyphae}`);
    expect(derivedImages(objects).filter((i) => !upstream.has(i))).toEqual(expected);
    // The chart's other files are the repository's.
    expect(readFileSync(join(pinnedChart, 'Chart.yaml'), 'utf8')).toBe(readRepoFile('charts/hyphae/Chart.yaml'));
  });

  it('refuses a release whose version or registry is not the chart’s, and a malformed digest', () => {
    expect(pin('--registry', workflow.registry, '--version', '9.9.9', ...digestArgs).output).toContain('the release is 9.9.9');
    expect(pin('--registry', 'ghcr.io/someone-else', '--version', version, ...digestArgs).output).toContain('image.repository is not ghcr.io/someone-else/hyphae');
    const bad = pin('--registry', workflow.registry, '--version', version, '--digest', 'hyphae=sha256:abc', '--digest', `postgres=${digest.postgres}`);
    expect(bad.code).toBe(2);
    expect(bad.output).toContain('not sha256:<64 hex>');
  });
});
