/**
 * The first hour with the embedded server, as the README walks it (issue 43), on the real
 * executable with every default: the one-time admin key stays in sight (no line per request),
 * a key per agent is minted, listed and revoked with `hyphae keys … --remote` while the server
 * runs, and used as `Authorization: Bearer`; what is refused says what to do instead; `GET /`
 * leads a browser to the console; a second server starts beside the first on its own ports.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_LAUNCHER, runHyphae, startServer, type Launcher, type RunningServer } from '../support/cli-process.js';
import { freePort } from '../support/free-port.js';
import { KEY_PATTERN, userEnv, workFolder, type WorkFolder } from '../support/product-fixtures.js';

const REQUESTS = 20;

async function printedKey(server: RunningServer): Promise<string> {
  // stdout and stderr are separate pipes: the banner may arrive just after the "serving on" line.
  for (let i = 0; i < 200 && !server.stdout().includes('"mcpServers"'); i++) await new Promise((r) => setTimeout(r, 50));
  return KEY_PATTERN.exec(server.stdout())?.[0] ?? '';
}

describe('the first hour with `hyphae serve`', { timeout: 600_000 }, () => {
  let folder: WorkFolder;
  let other: WorkFolder;
  let server: RunningServer | undefined;
  let second: RunningServer | undefined;
  let admin = '';
  let grpcPort = 0;
  const launcher = (dir: string): Launcher => ({ ...NODE_LAUNCHER, cwd: dir });

  beforeAll(async () => {
    folder = await workFolder();
    other = await workFolder();
    grpcPort = await freePort();
    server = await startServer(['--port', '0', '--grpc-port', String(grpcPort)], userEnv(), launcher(folder.dir));
    admin = await printedKey(server);
  });
  afterAll(async () => {
    await second?.stop();
    await server?.stop();
    await folder?.remove();
    await other?.remove();
  });

  it('keeps request logs off the terminal at the default level: the admin key stays in sight', async () => {
    expect(admin).toMatch(KEY_PATTERN);
    const before = server?.stdout() ?? '';
    for (let i = 0; i < REQUESTS; i++) {
      const response = await fetch(`${server?.url}/v1/cells`, { headers: { 'x-hyphae-key': admin } });
      expect(response.status).toBe(200);
    }
    // A whole command's run later, any line those requests wrote has reached this side of the pipe.
    expect((await runHyphae(['keys', 'list', '--remote', server?.url ?? ''], userEnv({ HYPHAE_API_KEY: admin }), undefined, launcher(folder.dir))).code).toBe(0);
    expect(server?.stdout()).toBe(before);
    expect(server?.stderr()).not.toMatch(/request completed|incoming request/);
  });

  it('mints a key per agent with `keys create --remote` while the server runs, and the key works as a bearer', async () => {
    const created = await runHyphae(['keys', 'create', '--remote', server?.url ?? '', '--tenant', 'default', '--agent', 'bob'], userEnv({ HYPHAE_API_KEY: admin }), undefined, launcher(folder.dir));
    expect(created.code, created.stderr).toBe(0);
    // The clear key alone on stdout, as the local command prints it.
    expect(created.stdout).toMatch(/^hy_[A-Za-z0-9_-]{20,}\n$/);
    expect(created.stderr).toContain('for agent "bob" in tenant "default"');
    const bob = created.stdout.trim();
    const me = await fetch(`${server?.url}/v1/me`, { headers: { authorization: `Bearer ${bob}` } });
    expect(await me.json()).toMatchObject({ tenant: 'default', agent: 'bob', roles: ['writer'] });

    const listed = await runHyphae(['keys', 'list', '--remote', server?.url ?? '', '--json'], userEnv({ HYPHAE_API_KEY: admin }), undefined, launcher(folder.dir));
    expect(listed.code, listed.stderr).toBe(0);
    const keys = JSON.parse(listed.stdout) as { key_id: string; agent: string }[];
    const bobId = keys.find((k) => k.agent === 'bob')?.key_id ?? '';
    expect(bobId).not.toBe('');

    const revoked = await runHyphae(['keys', 'revoke', bobId, '--remote', server?.url ?? '', '--api-key', admin], userEnv(), undefined, launcher(folder.dir));
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stderr).toContain(`revoked key ${bobId} (agent "bob", tenant "default")`);
    expect((await fetch(`${server?.url}/v1/me`, { headers: { authorization: `Bearer ${bob}` } })).status).toBe(401);
  });

  it("shows the server's refusals clearly: a key that is no admin's, no key at all", async () => {
    const made = await runHyphae(['keys', 'create', '--remote', server?.url ?? '', '--tenant', 'default', '--agent', 'carol'], userEnv({ HYPHAE_API_KEY: admin }), undefined, launcher(folder.dir));
    const carol = made.stdout.trim();
    const forbidden = await runHyphae(['keys', 'create', '--remote', server?.url ?? '', '--agent', 'mallory'], userEnv({ HYPHAE_API_KEY: carol }), undefined, launcher(folder.dir));
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toMatch(/answered 403 FORBIDDEN: .*admin/);
    expect(forbidden.stdout).toBe('');
    const unknown = await runHyphae(['keys', 'list', '--remote', server?.url ?? ''], userEnv({ HYPHAE_API_KEY: 'hy_not-a-key-of-this-server' }), undefined, launcher(folder.dir));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/answered 401 UNAUTHENTICATED: .*set HYPHAE_API_KEY \(or --api-key\) to an admin key/);
    const help = await runHyphae(['keys', '--help'], userEnv(), undefined, launcher(folder.dir));
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('hyphae keys create --remote http://127.0.0.1:8787');
    const none = await runHyphae(['keys', 'list', '--remote', server?.url ?? ''], userEnv(), undefined, launcher(folder.dir));
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('needs an admin key of that server: set HYPHAE_API_KEY (or pass --api-key)');
  });

  it('a local `keys` or a second `serve` on the busy folder names what exists instead', async () => {
    const keys = await runHyphae(['keys', 'create', '--tenant', 'default', '--agent', 'dave'], userEnv(), undefined, launcher(folder.dir));
    expect(keys.code).toBe(2);
    expect(keys.stderr).toMatch(/in use by pid \d+ .*hyphae serve/);
    expect(keys.stderr).toContain('hyphae keys create --remote http://127.0.0.1:8787 --tenant default --agent <name>');
    expect(keys.stderr).toContain('POST /v1/admin/keys');
    expect(keys.stderr).not.toContain('use --remote to share it');
    const serve = await runHyphae(['serve', '--port', '0'], userEnv({ HYPHAE_GRPC_PORT: '0' }), undefined, launcher(folder.dir));
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain('a server already runs on this folder');
    expect(serve.stderr).toContain('--data-dir, --port and --grpc-port');
  });

  it('GET / sends a browser to the console and tells a program where MCP and REST are', async () => {
    const page = await fetch(`${server?.url}/`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/console/');
    const index = await fetch(`${server?.url}/`);
    expect(await index.json()).toMatchObject({ mcp: '/mcp', rest: '/v1', openapi: '/openapi.json', console: '/console/' });
  });

  it('a second server starts beside the first, in its own folder on its own --port and --grpc-port; at debug it logs one line per request', async () => {
    const secondGrpc = await freePort();
    second = await startServer(['--port', '0', '--grpc-port', String(secondGrpc)], userEnv({ HYPHAE_LOG_LEVEL: 'debug' }), launcher(other.dir));
    expect(server?.stderr()).toContain(`gRPC, gRPC-Web and Connect (h2c) on 127.0.0.1:${grpcPort}`);
    expect(second.stderr()).toContain(`gRPC, gRPC-Web and Connect (h2c) on 127.0.0.1:${secondGrpc}`);
    expect(second.url).not.toBe(server?.url);
    for (let i = 0; i < 3; i++) expect((await fetch(`${second.url}/v1/cells`)).status).toBe(401);
    const completed = (): string[] => (second?.stdout() ?? '').split('\n').filter((line) => line.includes('"request completed"'));
    for (let i = 0; i < 200 && completed().length < 3; i++) await new Promise((r) => setTimeout(r, 50));
    expect(completed()).toHaveLength(3);
    expect(second.stdout()).not.toContain('incoming request');
    expect(JSON.parse(completed()[0] ?? '{}')).toMatchObject({ level: 20, res: { statusCode: 401 } });
  });
});
