/**
 * Expiry of a source's diffs (docs/expiry.md): the diff a source's ingestion gossips (one per
 * recipient, naming the source, its title as preview) carries the source's expires_at, so once it
 * passes no inbox read shows the title — pull, peek, drain, the console's gossip — and the channel
 * backlog no longer counts it (nor a cell's diff past its ttl), with no sweep run. A living source's diff stays whole beside it.
 * On PGlite and on native PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { freshTenant } from '../support/facade-expectations.js';
import { waitFor } from '../support/wait-for.js';
import { onEveryDatabase, type ExpiryCore } from './expiry-cores.js';

const TEXT = '# Tides\n\nThe lighthouse keeper logs the tides every morning.\n\nThe lamp is trimmed at dusk by the lighthouse keeper.';

async function sourceDiffsExpireWithTheirSource(core: ExpiryCore): Promise<void> {
  const { facade } = core;
  const tenant = freshTenant();
  const admin = await core.principal(tenant, 'author', ['admin', 'writer', 'reader']);
  const watcher = await core.principal(tenant, 'watcher');
  const drainer = await core.principal(tenant, 'drainer');
  for (const agent of [watcher, drainer]) await facade.placeBeacon(agent, { text: 'the lighthouse keeper logs the tides', threshold: 0.3, include_own: false });
  const livingTitle = `living tides ${randomUUID().slice(0, 8)}`;
  const expiringTitle = `expiring tides ${randomUUID().slice(0, 8)}`;
  const living = await facade.ingestSource(admin, { text: TEXT, format: 'markdown', title: livingTitle, ttl_seconds: 3600 });
  const expiring = await facade.ingestSource(admin, { text: TEXT, format: 'markdown', title: expiringTitle, ttl_seconds: 2 });
  // A cell stored with a ttl beside it: its diff leaves the channel backlog the same way.
  const cell = await facade.store(admin, { content: 'the lighthouse keeper logs the tides at dawn', cell_type: 'Fact', salience: 0.5, ttl_seconds: 2 });

  const { rows } = await core.db.query<{ at: Date }>('SELECT expires_at AS at FROM sources WHERE source_id = $1', [expiring.source_id]);
  const expiresAt = new Date(rows[0]?.at ?? 0).getTime();
  const pulled = await facade.pullDiffs(watcher, { since: '2000-01-01T00:00:00Z', limit: 100 });
  const diffOf = (sourceId: string) => pulled.diffs.find((diff) => diff.source_id === sourceId);
  expect(diffOf(expiring.source_id)?.preview).toBe(expiringTitle);
  expect(Date.parse(diffOf(expiring.source_id)?.expires_at ?? ''), 'the diff carries the source’s expiry').toBe(expiresAt);
  expect(diffOf(living.source_id)?.expires_at).not.toBeNull();
  const backlog = async (type: string): Promise<number> => (await facade.channelBacklog(watcher)).groups.filter((group) => group.cell_type === type).reduce((sum, group) => sum + group.count, 0);
  expect(await backlog('document')).toBe(2);
  expect(await backlog('Fact')).toBe(1);

  const reads: Record<string, () => Promise<unknown>> = {
    pullDiffs: () => facade.pullDiffs(watcher, { since: '2000-01-01T00:00:00Z', limit: 100 }),
    peekInbox: () => facade.peekInbox(watcher, { limit: 100 }),
    drainInbox: () => facade.drainInbox(drainer, { page_size: 100 }),
    recentGossip: () => facade.recentGossip(admin, { limit: 100 }),
  };
  await waitFor(() => Date.now() > Math.max(expiresAt, Date.parse(cell.expires_at ?? '')) + 50);
  for (const [name, read] of Object.entries(reads)) {
    const answer = JSON.stringify(await read());
    expect(answer.includes(expiringTitle), `${name} after expiry`).toBe(false);
    expect(answer.includes(livingTitle), `${name}: the living source's diff stays`).toBe(true);
  }
  expect(await backlog('document'), 'the channel backlog no longer counts the expired source’s diff').toBe(1);
  expect(await backlog('Fact'), 'nor the expired cell’s').toBe(0);
  const { rows: kept } = await core.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sources WHERE source_id = $1', [expiring.source_id]);
  expect(kept[0]?.n, 'no sweep ran').toBe(1);
}

onEveryDatabase(
  'a source diff’s expiry',
  ['pglite'],
  'carries the source’s expires_at, and leaves every inbox read and the channel backlog once it passed, with no sweep run',
  sourceDiffsExpireWithTheirSource,
);
