import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runHyphae, startServer } from '../support/cli-process.js';

// Each case starts real processes on real PGlite folders (initdb included), hence the long timeout.
describe('the hyphae command', { timeout: 300_000 }, () => {
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'hyphae-cli-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('prints usage and rejects an unknown command with exit code 2', async () => {
    const help = await runHyphae(['help'], cliEnv());
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('hyphae serve');
    const unknown = await runHyphae(['frobnicate'], cliEnv());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
  });

  it('stops on a bad setting with a message naming the variable', async () => {
    const result = await runHyphae(['migrate'], cliEnv({ HYPHAE_PORT: 'eighty', HYPHAE_DATA_DIR: join(root, 'bad') }));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('HYPHAE_PORT');
    expect(existsSync(join(root, 'bad'))).toBe(false);
  });

  it('migrates once, then finds the schema current; refuses another embedder on the same data', async () => {
    // The hash embedder on purpose: the refusal must name both model ids, so the first one is fixed here.
    const env = cliEnv({ HYPHAE_DATA_DIR: join(root, 'migrate'), HYPHAE_EMBEDDER: 'hash' });
    const first = await runHyphae(['migrate'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/applied 1 core, 2 mesh/);
    const second = await runHyphae(['migrate'], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('schema is current');
    const mismatch = await runHyphae(['migrate', '--embedder', 'use-lite'], env);
    expect(mismatch.code).toBe(2);
    expect(mismatch.stderr).toMatch(/hash-512/);
    expect(mismatch.stderr).toMatch(/use-lite-512/);
  });

  it('creates, lists and revokes keys; the clear key is printed once, alone on stdout', async () => {
    const env = cliEnv({ HYPHAE_DATA_DIR: join(root, 'keys') });
    const created = await runHyphae(
      ['keys', 'create', '--tenant', 'acme', '--agent', 'planner', '--role', 'writer', '--projects', 'alpha,beta', '--trust', '0.8'],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    const lines = created.stdout.split('\n').filter((line) => line.length > 0);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^hy_[A-Za-z0-9_-]{20,}$/);
    const key = lines[0] ?? '';

    const listed = await runHyphae(['keys', 'list', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).not.toContain(key);
    const keys = JSON.parse(listed.stdout) as { key_id: string; agent: string; tenant: string; projects: string[]; trust: number }[];
    const entry = keys.find((k) => k.agent === 'planner');
    expect(entry).toMatchObject({ tenant: 'acme', projects: ['alpha', 'beta'] });
    expect(entry?.trust).toBeCloseTo(0.8, 5);

    const revoked = await runHyphae(['keys', 'revoke', entry?.key_id ?? ''], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    const again = JSON.parse((await runHyphae(['keys', 'list', '--json'], env)).stdout) as { key_id: string; revoked_at: string | null }[];
    expect(again.find((k) => k.key_id === entry?.key_id)?.revoked_at).not.toBeNull();

    const bad = await runHyphae(['keys', 'create', '--tenant', 'acme', '--agent', 'x', '--trust', '7'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('trust');
  });

  it('serves: first start mints an admin key and prints the MCP configuration; data survives a restart; the folder is locked while it runs', async () => {
    const dataDir = join(root, 'serve');
    const env = cliEnv({ HYPHAE_DATA_DIR: dataDir, HYPHAE_PORT: '0' });
    const server = await startServer([], env);
    let stopped = false;
    try {
      // stdout and stderr are separate pipes: the banner may arrive just after the "serving on" line.
      for (let i = 0; i < 100 && !server.stdout().includes('"mcpServers"'); i++) await new Promise((r) => setTimeout(r, 50));
      const key = /hy_[A-Za-z0-9_-]{20,}/.exec(server.stdout())?.[0];
      expect(key).toBeDefined();
      expect(server.stdout()).toContain('"mcpServers"');
      expect(server.stdout()).toContain(`${server.url}/mcp`);
      expect(server.stdout()).toContain(`Web console: ${server.url}/console/`);

      const health = await fetch(`${server.url}/healthz`);
      expect(health.status).toBe(200);
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { checks: Record<string, string> }).checks).toEqual({ database: 'ok' });
      const stored = await fetch(`${server.url}/v1/cells`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hyphae-key': key ?? '' },
        body: JSON.stringify({ content: 'Retries use exponential backoff with jitter', cell_type: 'Pattern' }),
      });
      expect(stored.status).toBe(201);
      const { node_id: nodeId } = (await stored.json()) as { node_id: string };

      const second = await runHyphae(['keys', 'list'], env);
      expect(second.code).toBe(2);
      expect(second.stderr).toMatch(/in use by pid \d+/);
      expect(second.stderr).toContain('hyphae serve');

      expect(await server.stop()).toBe(0);
      stopped = true;
      expect(existsSync(join(dataDir, 'hyphae.lock'))).toBe(false);

      const restarted = await startServer([], env);
      try {
        expect(restarted.stdout()).not.toMatch(/hy_[A-Za-z0-9_-]{20,}/);
        const read = await fetch(`${restarted.url}/v1/cells/${nodeId}`, { headers: { 'x-hyphae-key': key ?? '' } });
        expect(read.status).toBe(200);
        expect(((await read.json()) as { content: string }).content).toBe('Retries use exponential backoff with jitter');
      } finally {
        expect(await restarted.stop()).toBe(0);
      }
    } finally {
      if (!stopped) await server.stop();
    }
  });

  it('mcp over stdio refuses a missing or unknown key with exit code 2 and nothing on stdout', async () => {
    const env = cliEnv({ HYPHAE_DATA_DIR: join(root, 'mcp') });
    const missing = await runHyphae(['mcp'], env);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toContain('HYPHAE_API_KEY');
    const unknown = await runHyphae(['mcp'], { ...env, HYPHAE_API_KEY: 'hy_notakey' });
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toContain('not accepted');
  });
});
