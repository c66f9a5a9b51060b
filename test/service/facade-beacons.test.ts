import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Diff } from '../../src/core/entities.js';
import type { Principal } from '../../src/core/principal.js';
import { purgeExpiredBeacons, purgeExpiredDiffs } from '../../src/mesh/retention.js';
import type { WrittenDiff } from '../../src/mesh/diff-writer.js';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { expectCode, expectInvalidField, freshTenant, MISSING_ID } from '../support/facade-expectations.js';

const EPOCH = '2000-01-01T00:00:00Z';

describe.each(TEST_DRIVERS)('beacons, gossip and inboxes on %s', (driver) => {
  let rt: TestRuntime;
  const signalled: WrittenDiff[] = [];

  beforeAll(async () => {
    rt = await createTestRuntime({ driver, outbox: { diffsCommitted: (diffs) => signalled.push(...diffs) } });
  });
  afterAll(async () => rt.close());

  const pair = async (): Promise<{ author: Principal; watcher: Principal }> => {
    const t = freshTenant();
    return { author: await rt.principal({ tenant: t, agent: 'author' }), watcher: await rt.principal({ tenant: t, agent: 'watcher' }) };
  };
  const similarity = async (a: string, b: string): Promise<number> => {
    const [va, vb] = await rt.embedder.embed([a, b]);
    let s = 0;
    for (let i = 0; i < rt.embedder.dimension; i++) s += (va?.[i] ?? 0) * (vb?.[i] ?? 0);
    return s;
  };
  const allDiffs = async (p: Principal): Promise<readonly Diff[]> => (await rt.facade.pullDiffs(p, { since: EPOCH, limit: 500 })).diffs;

  it('places, lists (paginated, own only) and deletes beacons', async () => {
    const { author, watcher } = await pair();
    const placed = [];
    for (let i = 0; i < 3; i++) placed.push(await rt.facade.placeBeacon(watcher, { text: `interest ${i}`, include_own: false, cell_types: ['Risk'], project: 'p', ttl_seconds: 3600 }));
    expect(placed[0]).toMatchObject({ owner_agent: 'watcher', project: 'p', threshold: rt.facade.config.defaultBeaconThreshold, cell_types: ['Risk'], include_own: false });
    expect(Date.parse(placed[0]?.expires_at ?? '') - Date.parse(placed[0]?.created_at ?? '')).toBe(3_600_000);
    const first = await rt.facade.listBeacons(watcher, { limit: 2 });
    const second = await rt.facade.listBeacons(watcher, { limit: 2, cursor: first.next_cursor ?? '' });
    expect([...first.items, ...second.items].map((b) => b.beacon_id)).toEqual(placed.map((b) => b.beacon_id));
    expect(second.next_cursor).toBeNull();
    expect((await rt.facade.listBeacons(author, { limit: 50 })).items).toEqual([]);
    await expectCode(rt.facade.deleteBeacon(author, placed[0]?.beacon_id ?? ''), 'NOT_FOUND');
    await rt.facade.deleteBeacon(watcher, placed[0]?.beacon_id ?? '');
    await expectCode(rt.facade.deleteBeacon(watcher, placed[0]?.beacon_id ?? ''), 'NOT_FOUND');
    await expectCode(rt.facade.deleteBeacon(watcher, MISSING_ID), 'NOT_FOUND');
    expect((await rt.facade.listBeacons(watcher, { limit: 50 })).items).toHaveLength(2);
  });

  it('refuses bad beacon input naming the field', async () => {
    const { watcher } = await pair();
    await expectInvalidField(rt.facade.placeBeacon(watcher, { text: '', include_own: false }), 'text');
    await expectInvalidField(rt.facade.placeBeacon(watcher, { text: 'x', include_own: false, threshold: 1.2 }), 'threshold');
    await expectInvalidField(rt.facade.placeBeacon(watcher, { text: 'x', include_own: false, threshold: 0.05 }), 'threshold');
    await expectInvalidField(rt.facade.placeBeacon(watcher, { text: 'x', include_own: false, ttl_seconds: 0 }), 'ttl_seconds');
    await expectInvalidField(rt.facade.placeBeacon(watcher, { text: 'x', include_own: false, cell_types: ['Gossip'] } as never), 'cell_types.0');
    await expectInvalidField(rt.facade.placeBeacon(watcher, { text: 'x', include_own: false, owner_agent: 'x' } as never), 'owner_agent');
    await expectInvalidField(rt.facade.deleteBeacon(watcher, 'x'), 'beacon_id');
    const narrow = await rt.principal({ tenant: watcher.tenantId, agent: 'narrow', projects: ['only'] });
    await expectCode(rt.facade.placeBeacon(narrow, { text: 'x', include_own: false, project: 'elsewhere' }), 'FORBIDDEN');
  });

  it('a matching store lands in the owner inbox in the same transaction, with a preview and the signal', async () => {
    const { author, watcher } = await pair();
    const beacon = await rt.facade.placeBeacon(watcher, { text: 'kafka consumer lag', include_own: false, threshold: 0.3 });
    const long = `kafka consumer lag alarms fire nightly ${'x'.repeat(400)}`;
    const node = await rt.facade.store(author, { content: long, cell_type: 'Risk', salience: 0.7 });
    const diffs = await allDiffs(watcher);
    expect(diffs).toHaveLength(1);
    expect(diffs[0]).toMatchObject({ seq: 1, op: 'created', node_id: node.node_id, beacon_id: beacon.beacon_id, cell_type: 'Risk', salience: 0.7, source_agent: 'author', project: 'default', scene_id: null });
    expect(diffs[0]?.preview).toBe(long.slice(0, 280));
    expect(diffs[0]?.similarity ?? 0).toBeGreaterThan(0.3);
    expect(signalled.map((d) => d.diff.diff_id)).toContain(diffs[0]?.diff_id);
    expect(await allDiffs(author)).toEqual([]);
  });

  it('reach: a high-salience cell reaches a beacon that the same text at low salience does not', async () => {
    const { author, watcher } = await pair();
    const text = 'database failover drill results';
    const content = 'the failover drill for the primary database went fine';
    const s = await similarity(text, content);
    // reach = 0.15 · salience · w(Decision = 0.9): 0 at salience 0, 0.135 at salience 1.
    const threshold = s + 0.07;
    expect(threshold).toBeGreaterThan(0.2);
    const beacon = await rt.facade.placeBeacon(watcher, { text, include_own: false, threshold });
    const low = await rt.facade.store(author, { content, cell_type: 'Decision', salience: 0 });
    // Forgotten first, or the same text would reinforce it instead of writing a cell (a deletion it never reached tells the beacon nothing).
    await rt.facade.deleteCell(author, low.node_id);
    const high = await rt.facade.store(author, { content, cell_type: 'Decision', salience: 1 });
    expect(high.node_id).not.toBe(low.node_id);
    const diffs = await allDiffs(watcher);
    expect(diffs.map((d) => d.node_id)).toEqual([high.node_id]);
    expect(diffs.map((d) => d.node_id)).not.toContain(low.node_id);
    expect(diffs[0]?.beacon_id).toBe(beacon.beacon_id);
  });

  it('filters: project, cell_types and scene', async () => {
    // One watcher per filter: a store writes one diff per recipient, so each filter is read from its own inbox.
    const t = freshTenant();
    const author = await rt.principal({ tenant: t, agent: 'author', projects: ['a', 'b'], default_project: 'a' });
    const byProject = await rt.principal({ tenant: t, agent: 'by-project', projects: ['a', 'b'] });
    const byType = await rt.principal({ tenant: t, agent: 'by-type', projects: ['a', 'b'] });
    const byScene = await rt.principal({ tenant: t, agent: 'by-scene', projects: ['a', 'b'] });
    const onlyB = await rt.principal({ tenant: t, agent: 'only-b', projects: ['b'] });
    const text = 'payment retries';
    const projectBeacon = await rt.facade.placeBeacon(byProject, { text, include_own: false, threshold: 0.2, project: 'b' });
    const typeBeacon = await rt.facade.placeBeacon(byType, { text, include_own: false, threshold: 0.2, cell_types: ['Risk'] });
    const scoped = await rt.facade.placeBeacon(onlyB, { text, include_own: false, threshold: 0.2 });
    const inA = await rt.facade.store(author, { content: 'payment retries double charge', cell_type: 'Risk', salience: 0.5 });
    const session = await rt.facade.openSession(author, { project: 'b' });
    const sceneBeacon = await rt.facade.placeBeacon(byScene, { text, include_own: false, threshold: 0.2, scene_id: session.scene_id });
    const inBScene = await rt.facade.store(author, { content: 'payment retries are capped', cell_type: 'Fact', salience: 0.5 });
    await rt.facade.closeSession(author, { session_id: session.session_id });
    const session2 = await rt.facade.openSession(author, { project: 'b' });
    const inBOther = await rt.facade.store(author, { content: 'payment retries use backoff', cell_type: 'Fact', salience: 0.5 });
    const got = async (p: Principal): Promise<string[][]> => (await allDiffs(p)).map((d) => [d.beacon_id, d.node_id]);
    expect(await got(byProject)).toEqual([
      [projectBeacon.beacon_id, inBScene.node_id],
      [projectBeacon.beacon_id, inBOther.node_id],
    ]);
    expect(await got(byType)).toEqual([[typeBeacon.beacon_id, inA.node_id]]);
    expect(await got(byScene)).toEqual([[sceneBeacon.beacon_id, inBScene.node_id]]);
    // A beacon without project watches only the owner's read scope.
    const scopedGot = (await allDiffs(onlyB)).map((d) => d.node_id);
    expect(scopedGot).toEqual([inBScene.node_id, inBOther.node_id]);
    expect(scoped.project).toBeNull();
    expect(session2.scene_id).not.toBe(session.scene_id);
  });

  it('never gossips back to the author unless the beacon asks for it', async () => {
    const { author } = await pair();
    const mute = await rt.facade.placeBeacon(author, { text: 'schema migration', include_own: false, threshold: 0.2 });
    const echo = await rt.facade.placeBeacon(author, { text: 'schema migration', include_own: true, threshold: 0.2 });
    await rt.facade.store(author, { content: 'schema migration plan for orders', cell_type: 'Decision', salience: 0.5 });
    const beacons = (await allDiffs(author)).map((d) => d.beacon_id);
    expect(beacons).toEqual([echo.beacon_id]);
    expect(beacons).not.toContain(mute.beacon_id);
  });

  it('an expired beacon stops matching and leaves the listing (TTL on the injected clock)', async () => {
    const { author, watcher } = await pair();
    await rt.facade.placeBeacon(watcher, { text: 'cdn cache purge', include_own: false, threshold: 0.2, ttl_seconds: 60 });
    await rt.facade.store(author, { content: 'cdn cache purge takes a minute', cell_type: 'Fact', salience: 0.5 });
    rt.clock.advance(61_000);
    await rt.facade.store(author, { content: 'cdn cache purge is now instant', cell_type: 'Fact', salience: 0.5 });
    expect(await allDiffs(watcher)).toHaveLength(1);
    expect((await rt.facade.listBeacons(watcher, { limit: 10 })).items).toEqual([]);
    expect(await purgeExpiredBeacons(rt.db, rt.clock.now())).toBeGreaterThanOrEqual(1);
    const { rows } = await rt.db.query<{ n: number }>('SELECT count(*)::int AS n FROM beacons WHERE tenant_id = $1', [watcher.tenantId]);
    expect(rows[0]?.n).toBe(0);
  });

  it('promotion emits a promoted diff; deleting the cell erases its L2 copy too, and each recipient hears deleted for both, without text', async () => {
    const { author, watcher } = await pair();
    await rt.facade.placeBeacon(watcher, { text: 'tls certificates rotation', include_own: false, threshold: 0.2 });
    const node = await rt.facade.store(author, { content: 'tls certificates rotation is automated', cell_type: 'Decision', salience: 1 });
    for (let i = 0; i < 2; i++) {
      await rt.facade.recall(author, { query: 'tls certificates rotation', k: 1 });
      await rt.facade.flushHits();
    }
    await rt.facade.deleteCell(author, node.node_id);
    const diffs = await allDiffs(watcher);
    expect(diffs.map((d) => d.op)).toEqual(['created', 'promoted', 'deleted', 'deleted']);
    expect(diffs.map((d) => d.seq)).toEqual([1, 2, 3, 4]);
    const copy = diffs[1]?.node_id;
    expect(copy).not.toBe(node.node_id);
    expect(new Set(diffs.slice(2).map((d) => d.node_id))).toEqual(new Set([node.node_id, copy]));
    // The created and promoted diffs stay as tombstones: no preview quotes the erased text.
    expect(diffs.map((d) => d.preview)).toEqual(['', '', '', '']);
  });

  it('pull_diffs pages by timestamp without losing or repeating a diff', async () => {
    const { author, watcher } = await pair();
    await rt.facade.placeBeacon(watcher, { text: 'queue backlog', include_own: false, threshold: 0.2 });
    // Concurrent stores: diffs of one inbox share a millisecond on PGlite, and must still page cleanly.
    await Promise.all(Array.from({ length: 9 }, (_, i) => rt.facade.store(author, { content: `queue backlog report ${i}`, cell_type: 'Fact', salience: 0.5 })));
    const seen: number[] = [];
    let since = EPOCH;
    for (;;) {
      const page = await rt.facade.pullDiffs(watcher, { since, limit: 2 });
      if (page.diffs.length === 0) {
        expect(page.next_since).toBe(since);
        break;
      }
      seen.push(...page.diffs.map((d) => d.seq));
      since = page.next_since;
    }
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await expectInvalidField(rt.facade.pullDiffs(watcher, { since: 'yesterday', limit: 5 }), 'since');
    await expectInvalidField(rt.facade.pullDiffs(watcher, { since: EPOCH, limit: 501 }), 'limit');
  });

  it('concurrent drains never return a diff twice and never skip one', async () => {
    const { author, watcher } = await pair();
    await rt.facade.placeBeacon(watcher, { text: 'nightly batch job', include_own: false, threshold: 0.2 });
    await Promise.all(Array.from({ length: 30 }, (_, i) => rt.facade.store(author, { content: `nightly batch job run ${i}`, cell_type: 'Fact', salience: 0.5 })));
    const drained: number[] = [];
    const drainer = async (): Promise<void> => {
      for (;;) {
        const page = await rt.facade.drainInbox(watcher, { page_size: 4 });
        drained.push(...page.diffs.map((d) => d.seq));
        if (!page.has_more && page.diffs.length === 0) return;
      }
    };
    await Promise.all(Array.from({ length: 6 }, drainer));
    expect([...drained].sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(await rt.facade.drainInbox(watcher, { page_size: 10 })).toEqual({ diffs: [], has_more: false });
    await rt.facade.store(author, { content: 'nightly batch job run late', cell_type: 'Fact', salience: 0.5 });
    const next = await rt.facade.drainInbox(watcher, { page_size: 10 });
    expect(next.diffs.map((d) => d.seq)).toEqual([31]);
    await expectInvalidField(rt.facade.drainInbox(watcher, { page_size: 0 }), 'page_size');
  });

  it('retention removes diffs older than the configured age and keeps the rest', async () => {
    const { author, watcher } = await pair();
    await rt.facade.placeBeacon(watcher, { text: 'retention policy', include_own: false, threshold: 0.2 });
    await rt.facade.store(author, { content: 'retention policy for logs', cell_type: 'Fact', salience: 0.5 });
    await rt.facade.store(author, { content: 'retention policy for backups', cell_type: 'Fact', salience: 0.5 });
    const [old] = await allDiffs(watcher);
    await rt.db.query(`UPDATE diffs SET created_at = now() - interval '31 days' WHERE diff_id = $1`, [old?.diff_id]);
    expect(await purgeExpiredDiffs(rt.db, 30)).toBeGreaterThanOrEqual(1);
    expect((await allDiffs(watcher)).map((d) => d.seq)).toEqual([2]);
  });

  it('live push is UNAVAILABLE without a diff feed', async () => {
    const { watcher } = await pair();
    await expectCode(rt.facade.subscribeDiffs(watcher, () => undefined), 'UNAVAILABLE');
  });
});
