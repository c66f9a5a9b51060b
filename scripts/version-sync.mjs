#!/usr/bin/env node
// Keeps every copy of the release version in step with package.json's `version`, the one place it
// is set: the chart's version and appVersion, the tag of the PostgreSQL image the chart defaults to,
// the HyphaeMesh CRD's default image tags, Hyphae's and PostgreSQL's (the operator's schema, then
// the generated CRD and the chart's copy of it), and every X.Y.Z inside the `<!-- release:NAME -->` blocks of README.md and
// docs/helm.md (the install commands), and server.json (the MCP registry entry: its version, the npm
// package's version and the image's tag). `npm version X.Y.Z` runs it (package.json's "version" script).
// Usage: node scripts/version-sync.mjs [--check] [--root DIR]
//   --check  change nothing; name each file out of step and exit 1 if there is one
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const check = args.includes('--check');
const rootAt = args.indexOf('--root');
const root = rootAt >= 0 ? resolve(args[rootAt + 1]) : fileURLToPath(new URL('..', import.meta.url));

/** X.Y.Z with an optional pre-release, not part of a longer dotted number (an IP address, 1.2.3.4). */
const VERSION_IN_TEXT = /(?<![\d.])\d+\.\d+\.\d+(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?(?![\d.])/g;
const CRD_SCHEMA = 'operator/src/crd/hyphae-mesh-schema.ts';
const CRD_FILE = 'crds/hyphae.dev_hyphaemeshes.yaml';

/** Replaces the one match of `pattern` (capture 1 kept, the rest replaced); more or none is an error. */
function replaceOne(text, pattern, replacement, where) {
  const matches = text.match(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`)) ?? [];
  if (matches.length !== 1) throw new Error(`${where}: expected exactly one match of ${pattern}, found ${matches.length}`);
  return text.replace(pattern, (_all, keep) => `${keep}${replacement}`);
}

function releaseBlocks(text, version) {
  return text.replace(/(<!-- release:([\w-]+) -->)([\s\S]*?)(<!-- \/release:\2 -->)/g, (_all, open, _name, body, close) =>
    `${open}${body.replace(VERSION_IN_TEXT, version)}${close}`);
}

/** server.json (the MCP registry's server.schema.json shape): every version it states is the release's. */
function serverJson(text, version) {
  const entry = JSON.parse(text);
  entry.version = version;
  for (const pkg of entry.packages ?? []) {
    if (pkg.registryType === 'oci') pkg.identifier = pkg.identifier.replace(/:[^:@/]+$/, `:${version}`);
    else pkg.version = version;
  }
  return `${JSON.stringify(entry, null, 2)}\n`;
}

const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.]+)?$/.test(version)) throw new Error(`package.json version ${version} is not X.Y.Z`);

const places = [
  ['charts/hyphae/Chart.yaml', (t) => replaceOne(replaceOne(t, /^(version: ).*$/m, version, 'Chart.yaml'), /^(appVersion: ).*$/m, `"${version}"`, 'Chart.yaml')],
  ['charts/hyphae/values.yaml', (t) => replaceOne(t, /^(\s+image: [^\s:]+\/postgres:)[^\s@]+$/m, version, 'values.yaml mesh.postgres.image')],
  [
    CRD_SCHEMA,
    (t) => replaceOne(replaceOne(t, /(tag: string\(\{ default: ')[^']+(?=')/, version, CRD_SCHEMA), /(image: string\(\{ default: '[^':]+\/postgres:)[^']+(?=')/, version, CRD_SCHEMA),
  ],
  ['README.md', (t) => releaseBlocks(t, version)],
  ['docs/helm.md', (t) => releaseBlocks(t, version)],
  ['server.json', (t) => serverJson(t, version)],
];

const stale = [];
for (const [file, sync] of places) {
  const path = join(root, file);
  const before = readFileSync(path, 'utf8');
  const after = sync(before);
  if (after === before) continue;
  stale.push(file);
  if (!check) writeFileSync(path, after);
}

if (check) {
  if (stale.length > 0) {
    console.error(`version-sync: out of step with package.json ${version}: ${stale.join(', ')} (run npm run version:sync)`);
    process.exit(1);
  }
  console.log(`version-sync: every copy is ${version}`);
} else {
  if (stale.includes(CRD_SCHEMA)) {
    // The CRD is generated from the schema; the chart carries a byte-for-byte copy.
    const generated = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'operator/src/crd/generate.ts')], { cwd: root, stdio: 'inherit' });
    if (generated.status !== 0) throw new Error('version-sync: generating the CRD failed');
    copyFileSync(join(root, CRD_FILE), join(root, 'charts/hyphae', CRD_FILE));
  }
  console.log(stale.length > 0 ? `version-sync: ${version} written to ${stale.join(', ')}` : `version-sync: every copy is ${version}`);
}
