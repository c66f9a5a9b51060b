/**
 * The expiry sweep (docs/expiry.md) on PGlite, PostgreSQL over the wire protocol and native
 * PostgreSQL: a cell of ttl_seconds 2 is still a row once it expired (reads skip it, nothing
 * deleted it), a maintenance pass erases it — its row and lexical terms gone — and each agent that
 * received a diff of it gets a `deleted` diff without text; a kept cell stays.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { TEST_DRIVERS } from '../support/test-runtime.js';
import { waitFor } from '../support/wait-for.js';
import { onEveryDatabase, type ExpiryCore } from './expiry-cores.js';

const rows = async (db: Db, sql: string, id: string): Promise<number> => (await db.query<{ n: number }>(sql, [id])).rows[0]?.n ?? -1;

async function expiryIsErasedBySweep(core: ExpiryCore): Promise<void> {
  const tenant = `t-${randomUUID().slice(0, 8)}`;
  const author = await core.principal(tenant, 'author');
  const watcher = await core.principal(tenant, 'watcher');
  await core.facade.placeBeacon(watcher, { text: 'the nightly backup rotates keys', threshold: 0.2, include_own: false });
  const canary = `the nightly backup rotates keys ${randomUUID()}`;
  const expiring = await core.facade.store(author, { content: canary, cell_type: 'Fact', salience: 0.9, ttl_seconds: 2 });
  const kept = await core.facade.store(author, { content: 'the nightly backup rotates keys forever', cell_type: 'Fact', salience: 0.9 });
  const received = await core.facade.pullDiffs(watcher, { since: '2000-01-01T00:00:00Z', limit: 100 });
  expect(received.diffs.filter((d) => d.node_id === expiring.node_id).map((d) => d.op)).toEqual(['created']);

  await waitFor(() => Date.now() > Date.parse(expiring.expires_at ?? '') + 50);
  expect(await rows(core.db, 'SELECT count(*)::int AS n FROM cells WHERE node_id = $1', expiring.node_id), 'reads skip it; no sweep ran yet').toBe(1);

  const sweep = await core.facade.sweepExpired();
  expect(sweep.cells).toBeGreaterThanOrEqual(1);
  expect(await rows(core.db, 'SELECT count(*)::int AS n FROM cells WHERE node_id = $1', expiring.node_id)).toBe(0);
  expect(await rows(core.db, 'SELECT count(*)::int AS n FROM cell_tenant_terms WHERE node_id = $1', expiring.node_id)).toBe(0);
  expect(await rows(core.db, 'SELECT count(*)::int AS n FROM cells WHERE node_id = $1', kept.node_id)).toBe(1);

  const after = await core.facade.pullDiffs(watcher, { since: '2000-01-01T00:00:00Z', limit: 100 });
  const notices = after.diffs.filter((d) => d.node_id === expiring.node_id && d.op === 'deleted');
  expect(notices).toHaveLength(1);
  expect(JSON.stringify(after)).not.toContain(canary);
  // A second pass finds nothing left to do.
  expect((await core.facade.sweepExpired()).cells).toBe(0);
}

onEveryDatabase('the expiry sweep', TEST_DRIVERS, 'erases an expired cell and tells those who received it', expiryIsErasedBySweep);
