// scripts/install-from-checkout.sh, the README's install before any release exists: a real bash runs
// the real script with stand-in builder, cluster, helm and kubectl binaries alone on PATH (each
// records its arguments), so its detection and the commands it runs for each tool are shown
// without building or touching a cluster. --dry-run prints the commands and runs none.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packageVersion, repoRoot } from '../support/release-sources.js';

const SCRIPT = join(repoRoot, 'scripts', 'install-from-checkout.sh');
const BASH = '/bin/bash';
/** The system tools the script itself uses; nothing else of the machine is on PATH. */
const SYSTEM_TOOLS = ['dirname', 'sed', 'head', 'git', 'date', 'mktemp', 'rm'];
const scratch = mkdtempSync(join(tmpdir(), 'hyphae-install-'));

function which(tool: string): string {
  for (const dir of ['/usr/bin', '/bin', '/usr/local/bin']) if (existsSync(join(dir, tool))) return join(dir, tool);
  throw new Error(`${tool} not found`);
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** Each stand-in's invocations, in order: `tool arg…`. */
  calls: string[];
}

/** Runs the script with `tools` stood in for; `context`: what `kubectl config current-context` answers. */
function install(tools: readonly string[], context: string | undefined, args: readonly string[]): Run {
  const dir = mkdtempSync(join(scratch, 'run-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const tool of SYSTEM_TOOLS) symlinkSync(which(tool), join(bin, tool));
  const log = join(dir, 'calls.log');
  writeFileSync(log, '');
  for (const tool of [...tools, ...(context === undefined ? [] : ['kubectl'])]) {
    const answer = tool === 'kubectl' && context !== undefined ? `if [ "$1 $2" = "config current-context" ]; then echo '${context}'; fi\n` : '';
    writeFileSync(join(bin, tool), `#!${BASH}\necho "\${0##*/} $*" >> '${log}'\n${answer}`);
    chmodSync(join(bin, tool), 0o755);
  }
  const r = spawnSync(BASH, [SCRIPT, ...args], { cwd: dir, env: { PATH: bin, HOME: dir }, encoding: 'utf8' });
  return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr, calls: readFileSync(log, 'utf8').split('\n').filter((l) => l !== '') };
}

const revision = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).stdout.trim();
const tag = `${packageVersion()}-local.${revision}`;
/** A printed command with the temporary archive folder replaced by ARCHIVES. */
const commands = (stdout: string): string[] =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith('+ '))
    .map((l) => l.slice(2).replace(/\/tmp\/[^/\s]+/g, 'ARCHIVES'));

const helmInstall = (namespace = 'hyphae'): string =>
  `helm upgrade --install hyphae charts/hyphae --namespace ${namespace} --create-namespace --set image.repository=hyphae.local/hyphae ` +
  `--set-string image.tag=${tag} --set image.pullPolicy=IfNotPresent --set mesh.enabled=true --set-string mesh.postgres.image=hyphae.local/postgres:${tag}`;

describe('scripts/install-from-checkout.sh', () => {
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('--dry-run with docker and a kind context: prints the build, save, kind load, helm and wait commands, and runs none', () => {
    const r = install(['docker', 'kind', 'helm'], 'kind-dev', ['--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(commands(r.stdout)).toEqual([
      `docker build -f Dockerfile -t hyphae.local/hyphae:${tag} .`,
      `docker build -f images/postgres/Containerfile -t hyphae.local/postgres:${tag} images/postgres`,
      `docker save -o ARCHIVES/hyphae.tar hyphae.local/hyphae:${tag}`,
      `docker save -o ARCHIVES/postgres.tar hyphae.local/postgres:${tag}`,
      'kind load image-archive ARCHIVES/hyphae.tar --name dev',
      'kind load image-archive ARCHIVES/postgres.tar --name dev',
      helmInstall(),
      'kubectl --namespace hyphae wait hyphaemesh/hyphae --for=condition=Ready --timeout=10m',
    ]);
    expect(r.calls).toEqual(['kubectl config current-context']);
  });

  it('with podman and a k3d context: runs each command, k3d image import into the context’s cluster, extra helm flags passed on', () => {
    const r = install(['podman', 'k3d', 'helm'], 'k3d-mesh', ['--namespace', 'memory', '--', '--set', 'mesh.ingress.enabled=true']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.calls.map((c) => c.replace(/\/tmp\/[^/\s]+/g, 'ARCHIVES'))).toEqual([
      'kubectl config current-context',
      `podman build -f Dockerfile -t hyphae.local/hyphae:${tag} .`,
      `podman build -f images/postgres/Containerfile -t hyphae.local/postgres:${tag} images/postgres`,
      `podman save -o ARCHIVES/hyphae.tar hyphae.local/hyphae:${tag}`,
      `podman save -o ARCHIVES/postgres.tar hyphae.local/postgres:${tag}`,
      'k3d image import ARCHIVES/hyphae.tar --cluster mesh',
      'k3d image import ARCHIVES/postgres.tar --cluster mesh',
      `${helmInstall('memory')} --set mesh.ingress.enabled=true`,
      'kubectl --namespace memory wait hyphaemesh/hyphae --for=condition=Ready --timeout=10m',
    ]);
  });

  it('--dry-run with buildah and minikube: buildah bud, a docker-archive push, minikube image load', () => {
    const r = install(['buildah', 'minikube', 'helm'], 'minikube', ['--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(commands(r.stdout).slice(0, 6)).toEqual([
      `buildah bud -f Dockerfile -t hyphae.local/hyphae:${tag} .`,
      `buildah bud -f images/postgres/Containerfile -t hyphae.local/postgres:${tag} images/postgres`,
      `buildah push hyphae.local/hyphae:${tag} docker-archive:ARCHIVES/hyphae.tar:hyphae.local/hyphae:${tag}`,
      `buildah push hyphae.local/postgres:${tag} docker-archive:ARCHIVES/postgres.tar:hyphae.local/postgres:${tag}`,
      'minikube image load ARCHIVES/hyphae.tar --profile minikube',
      'minikube image load ARCHIVES/postgres.tar --profile minikube',
    ]);
  });

  it('prefers docker, then podman, nerdctl, buildah; takes the one cluster tool on PATH when the context names none', () => {
    const r = install(['nerdctl', 'buildah', 'kind', 'helm'], 'some-cloud', ['--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(commands(r.stdout)[0]).toBe(`nerdctl build -f Dockerfile -t hyphae.local/hyphae:${tag} .`);
    expect(commands(r.stdout)[4]).toBe('kind load image-archive ARCHIVES/hyphae.tar --name kind');
  });

  it('refuses, naming what to install or pass, when no builder, no single cluster tool or no helm is found', () => {
    const noBuilder = install(['kind', 'helm'], 'kind-dev', ['--dry-run']);
    expect(noBuilder.code).toBe(1);
    expect(noBuilder.stderr).toContain('install one of docker, podman, nerdctl or buildah');
    const twoClusters = install(['docker', 'kind', 'k3d', 'helm'], undefined, ['--dry-run']);
    expect(twoClusters.code).toBe(1);
    expect(twoClusters.stderr).toContain('pass --cluster kind|k3d|minikube');
    expect(install(['docker', 'kind', 'k3d', 'helm'], undefined, ['--dry-run', '--cluster', 'k3d']).stdout).toContain('+ k3d image import');
    const noHelm = install(['docker', 'kind'], 'kind-dev', ['--dry-run']);
    expect(noHelm.code).toBe(1);
    expect(noHelm.stderr).toContain('helm is not on PATH');
  });

  it.skipIf(spawnSync('shellcheck', ['--version']).status !== 0)('is shellcheck-clean', () => {
    const r = spawnSync('shellcheck', [SCRIPT], { encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
