#!/usr/bin/env node
// The head of a GitHub release's notes (GitHub's generated change list follows it): the install
// command, the images and chart with their digests, and the cosign commands that verify them.
// Usage: node scripts/release/notes.mjs --version X.Y.Z --registry REGISTRY --chart-registry REGISTRY
//          --chart-digest sha256:… --repository owner/name --digests DIR   (DIR/digest-<image>.txt)
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({
  options: {
    version: { type: 'string' },
    registry: { type: 'string' },
    'chart-registry': { type: 'string' },
    'chart-digest': { type: 'string' },
    repository: { type: 'string' },
    digests: { type: 'string' },
  },
});
for (const name of ['version', 'registry', 'chart-registry', 'chart-digest', 'repository', 'digests']) {
  if (!opts[name]) {
    console.error(`notes: --${name} is required`);
    process.exit(2);
  }
}
const { version, registry, repository } = opts;
const chart = `${opts['chart-registry']}/hyphae`;
const images = readdirSync(opts.digests)
  .filter((f) => /^digest-[a-z0-9-]+\.txt$/.test(f))
  .sort()
  .map((f) => ({ name: f.slice('digest-'.length, -'.txt'.length), digest: readFileSync(join(opts.digests, f), 'utf8').trim() }));
if (images.length === 0) {
  console.error(`notes: no digest-<image>.txt in ${opts.digests}`);
  process.exit(2);
}
const identity = `--certificate-identity https://github.com/${repository}/.github/workflows/release.yml@refs/tags/v${version} \\\n  --certificate-oidc-issuer https://token.actions.githubusercontent.com`;

const lines = [
  `## Install`,
  '',
  '```sh',
  `helm install hyphae oci://${chart} --version ${version} --namespace hyphae --create-namespace \\`,
  '  --set mesh.enabled=true',
  '```',
  '',
  `The chart pins the images below by digest. Every image is built for linux/amd64 and linux/arm64.`,
  '',
  '| artifact | reference |',
  '| --- | --- |',
  ...images.map(({ name, digest }) => `| image \`${name}\` | \`${registry}/${name}:${version}@${digest}\` |`),
  `| chart | \`oci://${chart}:${version}@${opts['chart-digest']}\` |`,
  '',
  '## Verify',
  '',
  'Signatures are keyless (cosign, this repository\'s release workflow identity):',
  '',
  '```sh',
  ...images.map(({ name }) => `cosign verify ${registry}/${name}:${version} \\\n  ${identity}`),
  `cosign verify ${chart}:${version} \\\n  ${identity}`,
  ...images.map(({ name }) => `cosign verify-attestation --type spdxjson ${registry}/${name}:${version} \\\n  ${identity}`),
  '```',
  '',
  `The SPDX SBOMs are attached below with their signature bundles: \`cosign verify-blob --bundle sbom-<image>.spdx.json.sigstore.json ${identity.replace('\\\n  ', '')} sbom-<image>.spdx.json\`.`,
  '',
];
process.stdout.write(lines.join('\n'));
