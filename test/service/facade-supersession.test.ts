/**
 * Supersession through the facade (docs/memory-model.md): `store` with `supersedes` makes the new
 * cell current and closes the old one (valid_until, superseded_by), keeping the chain; recall,
 * query and list see current cells unless asked for superseded ones or an instant (`as_of`); the
 * `updated` diff, naming both cells, reaches the beacons the new cell matches AND those that were
 * told about the old one; and a foreign, out-of-scope, other-project or already-replaced cell
 * cannot be superseded. Runs on PGlite and on PostgreSQL over the wire.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Diff, MemoryNode } from '../../src/core/entities.js';
import type { Principal } from '../../src/core/principal.js';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { expectCode, expectInvalidField, freshTenant, MISSING_ID } from '../support/facade-expectations.js';

const EPOCH = '2000-01-01T00:00:00Z';
const OLD = 'We keep user sessions in a Redis cache cluster.';
const NEW = 'Logins now persist inside PostgreSQL tables.';

describe.each(TEST_DRIVERS)('supersession on %s', (driver) => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await createTestRuntime({ driver });
  });
  afterAll(async () => rt.close());

  const agents = async (): Promise<{ author: Principal; watcher: Principal; newcomer: Principal; tenant: string }> => {
    const tenant = freshTenant();
    return {
      tenant,
      author: await rt.principal({ tenant, agent: 'author', default_project: 'p' }),
      watcher: await rt.principal({ tenant, agent: 'watcher', default_project: 'p' }),
      newcomer: await rt.principal({ tenant, agent: 'newcomer', default_project: 'p' }),
    };
  };
  const diffsOf = async (p: Principal): Promise<readonly Diff[]> => (await rt.facade.pullDiffs(p, { since: EPOCH, limit: 500 })).diffs;
  const ids = (nodes: readonly { node_id: string }[]): string[] => nodes.map((n) => n.node_id);

  /** Stores OLD, advances the clock, supersedes it with NEW; returns both nodes as stored. */
  const chain = async (author: Principal): Promise<{ old: MemoryNode; next: MemoryNode }> => {
    const old = await rt.facade.store(author, { content: OLD, cell_type: 'Decision', salience: 0.5 });
    rt.clock.advance(60_000);
    const next = await rt.facade.store(author, { content: NEW, cell_type: 'Decision', salience: 0.5, supersedes: old.node_id });
    return { old, next };
  };

  it('makes the new cell current, closes the old one at the same instant and keeps the chain', async () => {
    const { author } = await agents();
    const { old, next } = await chain(author);
    expect(old).toMatchObject({ valid_until: null, supersedes: null, superseded_by: null });
    expect(next).toMatchObject({ supersedes: old.node_id, superseded_by: null, valid_until: null });
    const closed = await rt.facade.getCell(author, old.node_id);
    expect(closed).toMatchObject({ superseded_by: next.node_id, valid_until: next.valid_from, content: OLD });
    expect(Date.parse(closed.valid_from)).toBeLessThan(Date.parse(next.valid_from));

    rt.clock.advance(60_000);
    const third = await rt.facade.store(author, { content: 'Logins moved to a managed identity provider.', cell_type: 'Decision', salience: 0.5, supersedes: next.node_id });
    // From any member, the whole chain, oldest first.
    for (const member of [old, next, third]) expect(ids((await rt.facade.cellHistory(author, member.node_id)).cells)).toEqual(ids([old, next, third]));
    expect(ids((await rt.facade.cellHistory(author, third.node_id)).cells)).toHaveLength(3);
  });

  it('leaves superseded cells out of recall, query and list unless asked; as_of reads the past', async () => {
    const { author } = await agents();
    const { old, next } = await chain(author);
    const recalled = async (validity?: { include_superseded?: boolean; as_of?: string }): Promise<string[]> =>
      ids((await rt.facade.recall(author, { query: OLD, k: 10 }, validity === undefined ? {} : { validity })).results);
    expect(await recalled()).toEqual([next.node_id]);
    expect((await recalled({ include_superseded: true })).sort()).toEqual([old.node_id, next.node_id].sort());
    expect(await recalled({ as_of: old.valid_from })).toEqual([old.node_id]);
    expect(await recalled({ as_of: next.valid_from })).toEqual([next.node_id]);
    expect(await recalled({ as_of: '1999-01-01T00:00:00Z' })).toEqual([]);

    expect(ids((await rt.facade.query(author, { query: OLD, layer: 'L0', k: 10 })).results)).toEqual([next.node_id]);
    expect(ids((await rt.facade.listCells(author, { limit: 50 })).items)).toEqual([next.node_id]);
    expect(ids((await rt.facade.listCells(author, { limit: 50, include_superseded: true })).items)).toEqual([next.node_id, old.node_id]);
    expect(ids((await rt.facade.listCells(author, { limit: 50, as_of: old.valid_from })).items)).toEqual([old.node_id]);

    // A cell read as of an instant is the version of its chain current then, from either end.
    expect((await rt.facade.getCell(author, next.node_id, { asOf: old.valid_from })).node_id).toBe(old.node_id);
    expect((await rt.facade.getCell(author, old.node_id, { asOf: next.valid_from })).node_id).toBe(next.node_id);
    await expectCode(rt.facade.getCell(author, old.node_id, { asOf: '1999-01-01T00:00:00Z' }), 'NOT_FOUND');
    await expectInvalidField(rt.facade.recall(author, { query: OLD, k: 10 }, { validity: { include_superseded: true, as_of: next.valid_from } }), 'as_of');
  });

  it('tells the beacons the new cell matches and the ones told about the old cell, once each, naming both cells', async () => {
    const { author, watcher, newcomer } = await agents();
    // watcher's interest matches the old text only; newcomer's matches the new text only.
    const redis = await rt.facade.placeBeacon(watcher, { text: 'redis cache cluster sessions', threshold: 0.3, include_own: false });
    const postgres = await rt.facade.placeBeacon(newcomer, { text: 'logins persist postgresql tables', threshold: 0.3, include_own: false });
    const { old, next } = await chain(author);

    const watcherDiffs = await diffsOf(watcher);
    expect(watcherDiffs.map((d) => [d.op, d.node_id, d.beacon_id, d.supersedes])).toEqual([
      ['created', old.node_id, redis.beacon_id, null],
      ['updated', next.node_id, redis.beacon_id, old.node_id],
    ]);
    expect(watcherDiffs[1]?.preview).toBe(NEW);
    expect((await diffsOf(newcomer)).map((d) => [d.op, d.node_id, d.beacon_id, d.supersedes])).toEqual([
      ['updated', next.node_id, postgres.beacon_id, old.node_id],
    ]);
    // The author's own beacons stay quiet unless they ask for their own cells.
    expect(await diffsOf(author)).toEqual([]);
  });

  it('refuses what cannot be superseded: foreign, unknown, out of scope, other project, already replaced, not a uuid', async () => {
    const { author, tenant } = await agents();
    const stranger = await rt.principal({ tenant: freshTenant(), agent: 'author', default_project: 'p' });
    const narrow = await rt.principal({ tenant, agent: 'narrow', projects: ['q'], default_project: 'q' });
    const elsewhere = await rt.principal({ tenant, agent: 'elsewhere', default_project: 'other' });
    const { old, next } = await chain(author);
    const attempt = (p: Principal, supersedes: string): Promise<MemoryNode> => rt.facade.store(p, { content: 'a replacement', cell_type: 'Fact', salience: 0.5, supersedes });

    await expectCode(attempt(stranger, next.node_id), 'NOT_FOUND');
    await expectCode(attempt(author, MISSING_ID), 'NOT_FOUND');
    await expectCode(attempt(narrow, next.node_id), 'NOT_FOUND');
    await expectInvalidField(attempt(elsewhere, next.node_id), 'supersedes');
    const conflict = await expectCode(attempt(author, old.node_id), 'CONFLICT');
    expect(conflict.message).toContain(next.node_id);
    await expectInvalidField(rt.facade.store(author, { content: 'x', cell_type: 'Fact', salience: 0.5, supersedes: 'not-a-uuid' }), 'supersedes');

    // Nothing was written by the refusals: the chain is still two long and `next` still current.
    expect(ids((await rt.facade.cellHistory(author, next.node_id)).cells)).toEqual([old.node_id, next.node_id]);
    expect((await rt.facade.getCell(author, next.node_id)).superseded_by).toBeNull();
    // Another tenant cannot read the history either.
    await expectCode(rt.facade.cellHistory(stranger, next.node_id), 'NOT_FOUND');
  });

  it('an idempotent replay of a supersession returns the new cell and supersedes nothing twice', async () => {
    const { author } = await agents();
    const old = await rt.facade.store(author, { content: OLD, cell_type: 'Decision', salience: 0.5 });
    const input = { content: NEW, cell_type: 'Decision' as const, salience: 0.5, supersedes: old.node_id, idempotency_key: 'move-sessions' };
    const first = await rt.facade.store(author, input);
    const again = await rt.facade.store(author, input);
    expect(again.node_id).toBe(first.node_id);
    expect(ids((await rt.facade.cellHistory(author, old.node_id)).cells)).toEqual([old.node_id, first.node_id]);
  });
});
