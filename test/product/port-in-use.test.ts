/**
 * Two `hyphae serve` on one host: a port another process holds stops the start with one line that
 * names the setting to change — no stack trace, exit code 2 — for the HTTP port and for the gRPC
 * port. A first start that could not listen mints no admin key, so the next start, on free ports,
 * still prints the one it mints.
 */
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_LAUNCHER, runHyphae, startServer, type Launcher, type RunningServer } from '../support/cli-process.js';
import { KEY_PATTERN, userEnv, workFolder, type WorkFolder } from '../support/product-fixtures.js';

const STACK_FRAME = /^\s+at /m;

describe('hyphae serve on a port another process holds', { timeout: 600_000 }, () => {
  let folder: WorkFolder;
  let holder: Server;
  let busy = 0;
  let server: RunningServer | undefined;
  const launcher = (): Launcher => ({ ...NODE_LAUNCHER, cwd: folder.dir });

  beforeAll(async () => {
    folder = await workFolder();
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
    busy = (holder.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await server?.stop();
    await new Promise((resolve) => holder.close(resolve));
    await folder.remove();
  });

  it('the HTTP port: one line naming HYPHAE_PORT and --port, exit code 2', async () => {
    const result = await runHyphae(['serve', '--port', String(busy)], userEnv({ HYPHAE_GRPC_PORT: '0' }), undefined, launcher());
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`hyphae serve: port ${busy} is in use (HTTP) — set HYPHAE_PORT (or --port) to another port\n`);
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(result.stdout).toBe('');
  });

  it('the gRPC port: one line naming HYPHAE_GRPC_PORT and how to turn gRPC off, exit code 2', async () => {
    const result = await runHyphae(['serve', '--port', '0'], userEnv({ HYPHAE_GRPC_PORT: String(busy) }), undefined, launcher());
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`hyphae serve: port ${busy} is in use (gRPC) — set HYPHAE_GRPC_PORT (or --grpc-port) to another port, or to 0 to turn gRPC off\n`);
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(result.stdout).toBe('');
  });

  it('the starts that could not listen minted no key: the first start on free ports prints the admin key', async () => {
    server = await startServer(['--port', '0'], userEnv(), launcher());
    for (let i = 0; i < 200 && !KEY_PATTERN.test(server.stdout()); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.stdout()).toMatch(KEY_PATTERN);
  });
});
