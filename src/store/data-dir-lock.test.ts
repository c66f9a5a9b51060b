import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnDataDirHolder } from '../../test/support/spawn-holder.js';
import { acquireDataDirLock, DATA_DIR_LOCK_FILE, readDataDirLockHolder } from './data-dir-lock.js';
import { DataDirLockedError } from './errors.js';

describe('data-folder lock', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hyphae-lock-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the holder into the lock file and removes it on release', async () => {
    const lock = await acquireDataDirLock(join(dir, 'data'), { command: 'hyphae test' });
    const holder = await readDataDirLockHolder(join(dir, 'data'));
    expect(holder).toEqual({ pid: process.pid, hostname: hostname(), startedAt: lock.holder.startedAt, command: 'hyphae test' });
    await lock.release();
    await lock.release();
    expect(await readdir(join(dir, 'data'))).toEqual([]);
  });

  it('refuses a second holder in the same process until the first releases', async () => {
    const first = await acquireDataDirLock(dir, { command: 'hyphae serve' });
    const second = acquireDataDirLock(dir);
    await expect(second).rejects.toBeInstanceOf(DataDirLockedError);
    await expect(second).rejects.toThrow(`data folder ${dir} is in use by pid ${process.pid}`);
    await first.release();
    const third = await acquireDataDirLock(dir);
    await third.release();
  });

  it('lets exactly one of many simultaneous callers take it', async () => {
    const attempts = await Promise.allSettled(Array.from({ length: 12 }, () => acquireDataDirLock(dir)));
    const won = attempts.filter((a) => a.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect(attempts.filter((a) => a.status === 'rejected' && a.reason instanceof DataDirLockedError)).toHaveLength(11);
    for (const a of won) await a.value.release();
  });

  it('refuses while another live process holds it, naming that process', async () => {
    const holder = await spawnDataDirHolder(dir, { lockOnly: true });
    try {
      const refused = acquireDataDirLock(dir);
      await expect(refused).rejects.toThrow(
        new RegExp(`data folder .* is in use by pid ${holder.pid} on .*\\(hyphae serve, started .*\\); stop it or use --remote to share it`),
      );
      await expect(refused).rejects.toMatchObject({ code: 'CONFLICT', holder: { pid: holder.pid, command: 'hyphae serve' } });
    } finally {
      await holder.stop();
    }
    expect(await readDataDirLockHolder(dir)).toBeUndefined();
  });

  it('takes over the lock of a process that died without releasing it, once among many', async () => {
    const holder = await spawnDataDirHolder(dir, { lockOnly: true });
    await holder.kill();
    expect((await readDataDirLockHolder(dir))?.pid).toBe(holder.pid);
    const attempts = await Promise.allSettled(Array.from({ length: 8 }, () => acquireDataDirLock(dir)));
    const won = attempts.filter((a) => a.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect((await readDataDirLockHolder(dir))?.pid).toBe(process.pid);
    for (const a of won) await a.value.release();
  });

  it('treats a holder on another host as alive', async () => {
    const foreign = { pid: 1, hostname: `not-${hostname()}`, startedAt: '2026-01-01T00:00:00.000Z', command: 'hyphae serve' };
    await writeFile(join(dir, DATA_DIR_LOCK_FILE), JSON.stringify(foreign));
    await expect(acquireDataDirLock(dir)).rejects.toThrow(`in use by pid 1 on not-${hostname()}`);
  });

  it('replaces an unreadable lock file', async () => {
    await writeFile(join(dir, DATA_DIR_LOCK_FILE), 'not json');
    const lock = await acquireDataDirLock(dir);
    expect(JSON.parse(await readFile(join(dir, DATA_DIR_LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid });
    await lock.release();
  });

  it('leaves a lock it no longer owns in place on release', async () => {
    const lock = await acquireDataDirLock(dir);
    const other = { pid: process.pid, hostname: hostname(), startedAt: 'later', command: 'someone else' };
    await writeFile(join(dir, DATA_DIR_LOCK_FILE), JSON.stringify(other));
    await lock.release();
    expect(await readDataDirLockHolder(dir)).toEqual(other);
  });
});
