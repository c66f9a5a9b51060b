import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** A throwaway PostgreSQL server (the real binaries, not PGlite) on a free loopback port. */
export interface RealPostgres {
  readonly url: string;
  close(): Promise<void>;
}

/** Where initdb and postgres are, or undefined when PostgreSQL is not installed. */
export function findPostgresBinDir(): string | undefined {
  const fromConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const candidates = [fromConfig.status === 0 ? fromConfig.stdout.trim() : '', '/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/17/bin'];
  return candidates.find((dir) => dir !== '' && spawnSync(join(dir, 'initdb'), ['--version']).status === 0);
}

/**
 * initdb + postgres in a temp folder. PostgreSQL refuses to run as root, so as root it runs as
 * the `postgres` system user.
 */
export async function startRealPostgres(binDir: string): Promise<RealPostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'hyphae-pg-'));
  const user = process.getuid?.() === 0 ? systemUser('postgres') : undefined;
  if (user !== undefined) await chown(dir, user.uid, user.gid);
  const dataDir = join(dir, 'data');
  const asUser = user === undefined ? {} : { uid: user.uid, gid: user.gid };
  const initdb = spawnSync(join(binDir, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], {
    ...asUser,
    encoding: 'utf8',
  });
  if (initdb.status !== 0) throw new Error(`initdb failed: ${initdb.stderr}`);
  const port = await freePort();
  const server: ChildProcess = spawn(
    join(binDir, 'postgres'),
    ['-D', dataDir, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'],
    { ...asUser, stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  await waitUntilAccepting(url, exited);
  return {
    url,
    async close(): Promise<void> {
      server.kill('SIGINT');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function systemUser(name: string): { uid: number; gid: number } {
  const uid = Number(spawnSync('id', ['-u', name], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', name], { encoding: 'utf8' }).stdout.trim());
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error(`no system user ${name} to run PostgreSQL as`);
  return { uid, gid };
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

async function waitUntilAccepting(url: string, exited: Promise<void>): Promise<void> {
  let stopped = false;
  void exited.then(() => {
    stopped = true;
  });
  for (;;) {
    if (stopped) throw new Error('postgres exited during start-up');
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
