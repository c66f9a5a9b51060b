/**
 * The MCP project's own conformance suite (@modelcontextprotocol/conformance, its `server` mode)
 * against the real executable: `node bin/hyphae.js serve` in a fresh folder with the default
 * configuration, over Streamable HTTP on loopback. Every scenario runs; the ones written for the
 * suite's fixture server (its test_* tools, test:// resources and prompts, logging, completions)
 * are the expected-failures baseline in support/conformance-fixture-scenarios.yml, and the suite
 * itself fails the run both on any other failure and on a baseline entry that now passes.
 *
 * Two things stand between the suite and the server, both as a host would have them: the suite
 * cannot send a header, so a loopback proxy adds the agent's `x-hyphae-key` (what a host's
 * `headers` setting does) and forwards everything else untouched, Host and Origin included; and
 * the suite needs Node ≥ 22, so it runs on the Node 24 runtime of scripts/node-runtime.sh when the
 * test runs on Node 20.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_LAUNCHER, REPO_ROOT, startServer } from '../cli/cli-process.js';
import type { RunningServer } from '../cli/cli-process.js';
import { KEY_PATTERN, userEnv, workFolder } from '../product/product-support.js';
import type { WorkFolder } from '../product/product-support.js';

const SUITE = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const BASELINE = fileURLToPath(new URL('./support/conformance-fixture-scenarios.yml', import.meta.url));

/** A `node` that runs the suite: this one from Node 22 on, else the cached Node 24 runtime. */
function modernNode(): string | undefined {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  try {
    const bin = execFileSync('bash', [join(REPO_ROOT, 'scripts/node-runtime.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
      .trim()
      .split('\n')
      .at(-1);
    return bin === undefined ? undefined : join(bin, 'node');
  } catch (error) {
    if (process.env.HYPHAE_TEST_REQUIRE === 'all') throw new Error(`a Node ≥ 22 for the conformance suite is required (HYPHAE_TEST_REQUIRE=all): ${String(error)}`, { cause: error });
    return undefined;
  }
}

const node = modernNode();

/** Forwards to `target` with the key added, as a host configured with the key's header does. */
function startKeyProxy(target: URL, key: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    const upstream = http.request(
      { host: target.hostname, port: target.port, path: request.url, method: request.method, headers: { ...request.headers, 'x-hyphae-key': key } },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/mcp`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

function runSuite(nodePath: string, url: string, outputDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(nodePath, [SUITE, 'server', '--url', url, '--expected-failures', BASELINE, '-o', outputDir], {
      cwd: outputDir,
      env: userEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

interface Check {
  readonly id: string;
  readonly status: string;
  readonly errorMessage?: string;
}

/** scenario → its checks, from the suite's results folder (one `server-<scenario>-<time>` folder per scenario). */
async function readChecks(outputDir: string): Promise<Map<string, Check[]>> {
  const checks = new Map<string, Check[]>();
  for (const entry of await readdir(outputDir)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T/.exec(entry)?.[1];
    if (scenario === undefined) continue;
    checks.set(scenario, JSON.parse(await readFile(join(outputDir, entry, 'checks.json'), 'utf8')) as Check[]);
  }
  return checks;
}

describe.skipIf(node === undefined)('the official MCP conformance suite against `hyphae serve`', { timeout: 600_000 }, () => {
  let folder: WorkFolder;
  let server: RunningServer | undefined;
  let proxy: { url: string; close(): Promise<void> } | undefined;
  let outputDir = '';

  beforeAll(async () => {
    folder = await workFolder();
    outputDir = await mkdtemp(join(tmpdir(), 'hyphae-conformance-'));
    server = await startServer(['--port', '0'], userEnv(), { ...NODE_LAUNCHER, cwd: folder.dir });
    for (let i = 0; i < 200 && !server.stdout().includes('"mcpServers"'); i++) await new Promise((r) => setTimeout(r, 50));
    const key = KEY_PATTERN.exec(server.stdout())?.[0];
    if (key === undefined) throw new Error(`serve printed no key:\n${server.stdout()}`);
    proxy = await startKeyProxy(new URL(server.url), key);
  });

  afterAll(async () => {
    await proxy?.close();
    await server?.stop();
    await folder?.remove();
    if (outputDir !== '') await rm(outputDir, { recursive: true, force: true });
  });

  it('passes every scenario that applies to a memory server; the fixture-only ones fail as the baseline says', async () => {
    const { code, output } = await runSuite(node ?? '', proxy?.url ?? '', outputDir);
    expect(code, output).toBe(0);
    const checks = await readChecks(outputDir);
    // The ones this server must pass, by name, so a suite that silently stops running them is noticed.
    for (const scenario of ['server-initialize', 'ping', 'tools-list', 'resources-list', 'prompts-list', 'server-sse-multiple-streams', 'dns-rebinding-protection']) {
      const failed = (checks.get(scenario) ?? [{ id: 'missing', status: 'FAILURE', errorMessage: 'scenario did not run' }]).filter(
        (check) => check.status === 'FAILURE' || check.status === 'WARNING',
      );
      expect(failed, `${scenario}: ${JSON.stringify(failed)}`).toEqual([]);
    }
    // The server lived through the whole suite, and kept its key's data to itself.
    expect(server?.child.exitCode).toBeNull();
  });
});
