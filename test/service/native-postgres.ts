/**
 * A throwaway native PostgreSQL server (Debian's `postgresql` package: initdb, postgres) on a
 * free loopback port, for the tests that need real concurrent transactions — PGlite, even
 * behind the wire protocol, runs one transaction at a time. It has no pgvector, so it carries
 * only the vector-free tables a test asks for.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface NativePostgres {
  readonly url: string;
  stop(): Promise<void>;
}

/** Directory holding initdb and postgres, or undefined when PostgreSQL is not installed. */
export function findPostgresBinaries(): string | undefined {
  const candidates = ['/usr/lib/postgresql'].flatMap((root) =>
    existsSync(root) ? readdirSync(root).sort().reverse().map((v) => join(root, v, 'bin')) : [],
  );
  return candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'postgres')));
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** PostgreSQL refuses to run as root: as root, initdb and the server run as the `postgres` user. */
function serverUser(): { uid: number; gid: number } | Record<string, never> {
  if (process.getuid?.() !== 0) return {};
  const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid, gid };
}

export async function startNativePostgres(binDir: string): Promise<NativePostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'hyphae-native-pg-'));
  const dataDir = join(dir, 'data');
  const user = serverUser();
  if ('uid' in user) chownSync(dir, user.uid, user.gid);
  const init = spawnSync(join(binDir, 'initdb'), ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8'], {
    encoding: 'utf8',
    cwd: dir,
    ...user,
  });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  const args = ['-D', dataDir, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=50'];
  const server: ChildProcess = spawn(join(binDir, 'postgres'), args, { stdio: 'ignore', cwd: dir, ...user });
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  for (let attempt = 0; ; attempt++) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (attempt >= 100 || server.exitCode !== null) {
        server.kill('SIGINT');
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url,
    async stop(): Promise<void> {
      if (server.exitCode === null) {
        const exited = new Promise((resolve) => server.once('exit', resolve));
        server.kill('SIGINT');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
