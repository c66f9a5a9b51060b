// Writes crds/hyphae.dev_hyphaemeshes.yaml: `tsx operator/src/crd/generate.ts`.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CRD_FILE, hyphaeMeshCrdYaml } from './hyphae-mesh-crd.js';

const target = fileURLToPath(new URL(`../../../crds/${CRD_FILE}`, import.meta.url));
writeFileSync(target, hyphaeMeshCrdYaml());
console.log(`wrote ${target}`);
