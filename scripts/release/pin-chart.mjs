#!/usr/bin/env node
// The chart a release publishes: a copy of charts/hyphae whose values pin the images that release
// pushed by digest (`image.digest`, and `mesh.postgres.image` as <repository>:<version>@<digest>),
// so an install runs exactly the signed images. The repository's own chart names tags only.
// Usage: node scripts/release/pin-chart.mjs --chart charts/hyphae --out DIR --registry REGISTRY
//          --version X.Y.Z --digest hyphae=sha256:… --digest postgres=sha256:…
// Writes DIR/<chart folder>; refuses a chart whose version or image names differ from the release's.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({
  options: {
    chart: { type: 'string' },
    out: { type: 'string' },
    registry: { type: 'string' },
    version: { type: 'string' },
    digest: { type: 'string', multiple: true },
  },
});
for (const name of ['chart', 'out', 'registry', 'version']) {
  if (!opts[name]) fail(`--${name} is required`);
}
const IMAGES = ['hyphae', 'postgres'];
const digests = new Map((opts.digest ?? []).map((pair) => pair.split('=', 2)));
for (const [name, digest] of digests) {
  if (!IMAGES.includes(name)) fail(`--digest ${name}: not an image of the chart (${IMAGES.join(', ')})`);
  if (!/^sha256:[a-f0-9]{64}$/.test(digest ?? '')) fail(`--digest ${name}=${digest}: not sha256:<64 hex>`);
}
for (const name of IMAGES) if (!digests.has(name)) fail(`--digest ${name}=sha256:… is required`);

const { registry, version } = opts;
const source = resolve(opts.chart);
const chartYaml = readFileSync(join(source, 'Chart.yaml'), 'utf8');
const chartVersion = /^version: (\S+)$/m.exec(chartYaml)?.[1];
const appVersion = /^appVersion: "?([^"\s]+)"?$/m.exec(chartYaml)?.[1];
if (chartVersion !== version || appVersion !== version) {
  fail(`Chart.yaml has version ${chartVersion} and appVersion ${appVersion}, the release is ${version}`);
}

let values = readFileSync(join(source, 'values.yaml'), 'utf8');
const image = /^image:\n((?: {2}.*\n|\s*\n)+)/m.exec(values)?.[1] ?? '';
if (!new RegExp(`^ {2}repository: ${escape(`${registry}/hyphae`)}$`, 'm').test(image)) fail(`values.yaml image.repository is not ${registry}/hyphae`);
if (!/^ {2}tag: ""$/m.test(image)) fail('values.yaml image.tag must be empty (the appVersion) in a release');
values = replaceOne(values, /^( {2}digest: )""$/m, `"${digests.get('hyphae')}"`, 'image.digest');
const postgres = `${registry}/postgres:${version}`;
values = replaceOne(values, new RegExp(`^(\\s+image: )${escape(postgres)}$`, 'm'), `${postgres}@${digests.get('postgres')}`, `mesh.postgres.image ${postgres}`);

const target = join(resolve(opts.out), basename(source));
cpSync(source, target, { recursive: true });
writeFileSync(join(target, 'values.yaml'), values);
console.log(`pin-chart: ${target} pins ${IMAGES.map((n) => `${registry}/${n}:${version}@${digests.get(n)}`).join(', ')}`);

function replaceOne(text, pattern, replacement, what) {
  const count = (text.match(new RegExp(pattern.source, `${pattern.flags}g`)) ?? []).length;
  if (count !== 1) fail(`values.yaml: ${what}: expected one line to pin, found ${count}`);
  return text.replace(pattern, (_all, keep) => `${keep}${replacement}`);
}

function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function fail(message) {
  console.error(`pin-chart: ${message}`);
  process.exit(2);
}
