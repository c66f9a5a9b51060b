/**
 * The MCP project's own conformance suite (@modelcontextprotocol/conformance, pinned in
 * package.json, its `server` mode) against the real executable: `node bin/hyphae.js serve` in a
 * fresh folder with the default configuration, over Streamable HTTP on loopback, once per protocol
 * revision Hyphae serves with the suite's requirement set for it (`--requirements 2025-11-25`, on the
 * initialize handshake, and `--requirements 2026-07-28`, stateless with per-request `_meta`; each
 * also runs that revision's not-scored scenarios). What cannot apply to a memory server — the
 * suite's fixture tools, resources and prompts, capabilities Hyphae does not declare, extensions it
 * does not offer — is recorded with its reason in conformance-not-applicable.yml; every
 * other check must pass, and an entry there that starts passing fails the test.
 *
 * Two things stand between the suite and the server, both as a host would have them: the suite
 * cannot send a header, so a loopback proxy adds the agent's `x-hyphae-key` (what a host's
 * `headers` setting does) and forwards everything else untouched, Host and Origin included; and
 * the suite needs Node ≥ 22, so it runs on the Node 24 runtime of scripts/node-runtime.sh when the
 * test runs on Node 20.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { NODE_LAUNCHER, REPO_ROOT, startServer } from '../support/cli-process.js';
import type { RunningServer } from '../support/cli-process.js';
import { KEY_PATTERN, userEnv, workFolder } from '../support/product-fixtures.js';
import type { WorkFolder } from '../support/product-fixtures.js';
import { skipTier } from '../support/test-tiers.js';

const SUITE_ROOT = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/conformance');
const SUITE = join(SUITE_ROOT, 'dist/index.js');
const NOT_APPLICABLE = fileURLToPath(new URL('./conformance-not-applicable.yml', import.meta.url));
const REVISIONS = ['2025-11-25', '2026-07-28'] as const;
type Revision = (typeof REVISIONS)[number];
/** Checks the suite adds to every scenario: what Hyphae put on the wire matches the revision's schema. */
const WIRE_CHECKS: ReadonlySet<string> = new Set(['wire-schema-valid', 'wire-schema-harness-error']);

/** A `node` that runs the suite: this one from Node 22 on, else the cached Node 24 runtime. */
function modernNode(): string | undefined {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  try {
    const bin = execFileSync('bash', [join(REPO_ROOT, 'scripts/node-runtime.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
      .trim()
      .split('\n')
      .at(-1);
    return bin === undefined ? undefined : join(bin, 'node');
  } catch {
    skipTier('conformance', 'a Node ≥ 22 (scripts/node-runtime.sh fetches Node 24)');
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

function runSuite(nodePath: string, url: string, revision: Revision, outputDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(nodePath, [SUITE, 'server', '--url', url, '--requirements', revision, '-o', outputDir], {
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

interface NotApplicable {
  readonly scenarios: Readonly<Record<string, string>>;
  readonly checks?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

async function notApplicable(revision: Revision): Promise<NotApplicable> {
  const all = parse(await readFile(NOT_APPLICABLE, 'utf8')) as Record<Revision, NotApplicable>;
  return all[revision];
}

/** The server scenarios a revision's requirement set runs: the scored ones and the not-scored server leg. */
async function requiredServerScenarios(revision: Revision): Promise<string[]> {
  const set = parse(await readFile(join(SUITE_ROOT, 'requirements', `${revision}.yaml`), 'utf8')) as {
    server: string[];
    not_scored?: { scenario: string; leg: string }[];
  };
  return [...set.server, ...(set.not_scored ?? []).filter((entry) => entry.leg === 'server').map((entry) => entry.scenario)];
}

const failing = (check: Check): boolean => check.status === 'FAILURE' || check.status === 'WARNING';

/** What a run found against the record: failures it does not excuse, and entries that no longer fail. */
function judge(checks: ReadonlyMap<string, Check[]>, record: NotApplicable): { unexcused: string[]; stale: string[] } {
  const unexcused: string[] = [];
  for (const [scenario, list] of checks) {
    for (const check of list.filter(failing)) {
      const excused = (scenario in record.scenarios && !WIRE_CHECKS.has(check.id)) || record.checks?.[scenario]?.[check.id] !== undefined;
      if (!excused) unexcused.push(`${scenario} / ${check.id}: ${check.errorMessage ?? check.status}`);
    }
  }
  const stale: string[] = [];
  for (const scenario of Object.keys(record.scenarios)) {
    if (!(checks.get(scenario) ?? []).some(failing)) stale.push(scenario);
  }
  for (const [scenario, ids] of Object.entries(record.checks ?? {})) {
    for (const id of Object.keys(ids)) {
      if (!(checks.get(scenario) ?? []).some((check) => check.id === id && failing(check))) stale.push(`${scenario} / ${id}`);
    }
  }
  return { unexcused, stale };
}

describe.skipIf(node === undefined)('the official MCP conformance suite against `hyphae serve`', { timeout: 600_000 }, () => {
  let folder: WorkFolder;
  let server: RunningServer | undefined;
  let proxy: { url: string; close(): Promise<void> } | undefined;
  let outputRoot = '';

  beforeAll(async () => {
    folder = await workFolder();
    outputRoot = await mkdtemp(join(tmpdir(), 'hyphae-conformance-'));
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
    if (outputRoot !== '') await rm(outputRoot, { recursive: true, force: true });
  });

  it.each(REVISIONS)('%s: every scenario of the requirement set runs, and every check passes but those that cannot apply', async (revision) => {
    const outputDir = join(outputRoot, revision);
    await mkdir(outputDir);
    const { output } = await runSuite(node ?? '', proxy?.url ?? '', revision, outputDir);
    const checks = await readChecks(outputDir);
    // A suite that silently stops running a scenario is noticed.
    const missing = (await requiredServerScenarios(revision)).filter((scenario) => !checks.has(scenario));
    expect(missing, output).toEqual([]);
    const { unexcused, stale } = judge(checks, await notApplicable(revision));
    expect(unexcused, 'failing checks not recorded as not applicable').toEqual([]);
    expect(stale, 'recorded as not applicable, yet passing: drop them from the record').toEqual([]);
    // The server lived through the whole suite.
    expect(server?.child.exitCode).toBeNull();
  });
});
