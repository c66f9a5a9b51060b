import { randomUUID } from 'node:crypto';
import { link, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { DataDirLockedError, DatabaseUnavailableError } from './errors.js';
import type { DataDirLockHolder } from './errors.js';

export const DATA_DIR_LOCK_FILE = 'hyphae.lock';
const TAKEOVER_GUARD_FILE = 'hyphae.lock.takeover';
// A takeover guard older than this was left by a process that died mid-takeover.
const TAKEOVER_GUARD_STALE_MS = 10_000;
const MAX_ATTEMPTS = 50;

export interface DataDirLock {
  readonly dataDir: string;
  readonly holder: DataDirLockHolder;
  /** Rewrites the lock file as ours (after a dump that carried another lock file was unpacked over it). */
  reassert(): Promise<void>;
  /** Removes the lock file if it is still ours; idempotent. */
  release(): Promise<void>;
}

export interface DataDirLockOptions {
  /** What the holder is doing, shown to a process that is refused (e.g. "hyphae serve"). */
  readonly command?: string;
}

/**
 * Takes the exclusive lock of a PGlite data folder: a lock file created atomically (written to a
 * private file, then hard-linked into place, so it is never seen half-written). A lock whose pid
 * is dead on this host is stale and taken over; a live or foreign-host holder is refused.
 */
export async function acquireDataDirLock(dataDir: string, options: DataDirLockOptions = {}): Promise<DataDirLock> {
  await mkdir(dataDir, { recursive: true });
  const lockPath = join(dataDir, DATA_DIR_LOCK_FILE);
  const holder: DataDirLockHolder = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    command: options.command ?? defaultCommand(),
  };
  const content = `${JSON.stringify({ ...holder, token: randomUUID() })}\n`;
  const privatePath = join(dataDir, `${DATA_DIR_LOCK_FILE}.${process.pid}.${randomUUID()}`);
  await writeDurably(privatePath, content);
  try {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (await linkIfAbsent(privatePath, lockPath)) return ownedLock(dataDir, lockPath, holder, content);
      const existing = await readLockFile(lockPath);
      if (existing === 'absent') continue;
      if (existing !== 'unreadable' && isHolderAlive(existing.holder)) {
        throw new DataDirLockedError(dataDir, existing.holder);
      }
      await takeOverStaleLock(dataDir, lockPath, existing === 'unreadable' ? undefined : existing.raw);
    }
    throw new DatabaseUnavailableError(`could not take the lock of data folder ${dataDir}: it keeps changing hands`);
  } finally {
    await unlink(privatePath).catch(() => undefined);
  }
}

/** The current holder of a data folder's lock, if its lock file exists and is readable. */
export async function readDataDirLockHolder(dataDir: string): Promise<DataDirLockHolder | undefined> {
  const existing = await readLockFile(join(dataDir, DATA_DIR_LOCK_FILE));
  return typeof existing === 'string' ? undefined : existing.holder;
}

function defaultCommand(): string {
  const script = process.argv[1];
  const args = process.argv.slice(2).filter((arg) => !arg.startsWith('-')).slice(0, 1);
  return [script === undefined ? basename(process.argv0) : basename(script), ...args].join(' ');
}

async function writeDurably(path: string, content: string): Promise<void> {
  const handle = await open(path, 'wx', 0o644);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function linkIfAbsent(from: string, to: string): Promise<boolean> {
  try {
    await link(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

type LockFileState = { readonly holder: DataDirLockHolder; readonly raw: string } | 'absent' | 'unreadable';

async function readLockFile(lockPath: string): Promise<LockFileState> {
  let raw: string;
  try {
    raw = await readFile(lockPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw error;
  }
  const holder = parseHolder(raw);
  return holder === undefined ? 'unreadable' : { holder, raw };
}

function parseHolder(raw: string): DataDirLockHolder | undefined {
  try {
    const value = JSON.parse(raw) as Record<string, unknown>;
    const { pid, hostname: host, startedAt, command } = value;
    if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return undefined;
    if (typeof host !== 'string' || typeof startedAt !== 'string' || typeof command !== 'string') return undefined;
    return { pid, hostname: host, startedAt, command };
  } catch {
    return undefined;
  }
}

function isHolderAlive(holder: DataDirLockHolder): boolean {
  // A pid on another host cannot be checked: assume it is alive rather than risk two writers.
  if (holder.hostname !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes a stale lock under a short-lived guard file, re-checking that the lock is still the
 * same stale one, so two processes recovering at once cannot delete each other's fresh lock.
 */
async function takeOverStaleLock(dataDir: string, lockPath: string, staleRaw: string | undefined): Promise<void> {
  const guardPath = join(dataDir, TAKEOVER_GUARD_FILE);
  try {
    await writeDurably(guardPath, `${process.pid}\n`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    await removeAbandonedGuard(guardPath);
    await new Promise((resolve) => setTimeout(resolve, 20));
    return;
  }
  try {
    const current = await readLockFile(lockPath);
    const unchanged = current === 'unreadable' ? staleRaw === undefined : current !== 'absent' && current.raw === staleRaw;
    if (unchanged) await unlink(lockPath).catch(() => undefined);
  } finally {
    await unlink(guardPath).catch(() => undefined);
  }
}

async function removeAbandonedGuard(guardPath: string): Promise<void> {
  try {
    const info = await stat(guardPath);
    if (Date.now() - info.mtimeMs > TAKEOVER_GUARD_STALE_MS) await unlink(guardPath);
  } catch {
    // Already gone: another process finished its takeover.
  }
}

function ownedLock(dataDir: string, lockPath: string, holder: DataDirLockHolder, content: string): DataDirLock {
  let released = false;
  return {
    dataDir,
    holder,
    async reassert(): Promise<void> {
      if (released) return;
      const current = await readFile(lockPath, 'utf8').catch(() => undefined);
      if (current === content) return;
      const privatePath = join(dataDir, `${DATA_DIR_LOCK_FILE}.${process.pid}.${randomUUID()}`);
      await writeDurably(privatePath, content);
      await rename(privatePath, lockPath);
    },
    async release(): Promise<void> {
      if (released) return;
      released = true;
      const current = await readFile(lockPath, 'utf8').catch(() => undefined);
      if (current === content) await unlink(lockPath).catch(() => undefined);
    },
  };
}
