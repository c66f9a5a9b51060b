/**
 * Quotas and bounded fan-out (docs/security.md): one key could place 2,000 beacons on one topic and turn
 * every matching store into 2,000 diffs for one inbox. Now an agent holds at most
 * maxBeaconsPerAgent live beacons, and a store writes one diff per recipient, whatever the
 * number of that recipient's beacons it reaches. (Placements racing on real connections:
 * test/service/inbox-concurrency-native.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Diff } from '../../src/core/entities.js';
import type { Principal } from '../../src/core/principal.js';
import type { WrittenDiff } from '../../src/mesh/diff-writer.js';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { expectCode, freshTenant } from '../support/facade-expectations.js';

const EPOCH = '2000-01-01T00:00:00Z';
const LIMIT = 4;
const INBOX = 3;

describe.each(TEST_DRIVERS)('beacon quota and one diff per recipient on %s', (driver) => {
  let rt: TestRuntime;
  const signalled: WrittenDiff[] = [];

  beforeAll(async () => {
    rt = await createTestRuntime({
      driver,
      facade: { maxBeaconsPerAgent: LIMIT, maxInboxDiffs: INBOX },
      outbox: { diffsCommitted: (diffs) => signalled.push(...diffs) },
    });
  });
  afterAll(async () => rt.close());

  const agents = async (...names: string[]): Promise<Principal[]> => {
    const tenant = freshTenant();
    return Promise.all(names.map((agent) => rt.principal({ tenant, agent })));
  };
  const inbox = async (p: Principal): Promise<readonly Diff[]> => (await rt.facade.pullDiffs(p, { since: EPOCH, limit: 500 })).diffs;

  it('an agent holds at most the limit of live beacons: one more is a CONFLICT naming the quota; others are not affected', async () => {
    const [reader, other] = await agents('reader', 'other');
    if (reader === undefined || other === undefined) throw new Error('principals');
    const placed = [];
    for (let i = 0; i < LIMIT; i++) placed.push(await rt.facade.placeBeacon(reader, { text: `topic ${i}`, include_own: false }));
    const refused = await expectCode(rt.facade.placeBeacon(reader, { text: 'one too many', include_own: false }), 'CONFLICT');
    expect(refused.details).toMatchObject({ quota: 'beacons_per_agent', limit: LIMIT });
    expect((await rt.facade.listBeacons(reader, { limit: 50 })).items).toHaveLength(LIMIT);
    // Per agent: another agent of the same tenant still has its own room.
    await rt.facade.placeBeacon(other, { text: 'topic 0', include_own: false });
    // Deleting one makes room for one.
    await rt.facade.deleteBeacon(reader, placed[0]?.beacon_id ?? '');
    await rt.facade.placeBeacon(reader, { text: 'replacement', include_own: false });
    await expectCode(rt.facade.placeBeacon(reader, { text: 'again too many', include_own: false }), 'CONFLICT');
  });

  it('expired beacons do not count against the quota', async () => {
    const [reader] = await agents('reader');
    if (reader === undefined) throw new Error('principal');
    for (let i = 0; i < LIMIT; i++) await rt.facade.placeBeacon(reader, { text: `short-lived ${i}`, include_own: false, ttl_seconds: 60 });
    await expectCode(rt.facade.placeBeacon(reader, { text: 'full', include_own: false }), 'CONFLICT');
    rt.clock.advance(61_000);
    await rt.facade.placeBeacon(reader, { text: 'room again', include_own: false });
  });

  it('a store reaching several beacons of one recipient writes one diff to it, naming the most similar beacon; each recipient gets its own', async () => {
    const [author, watcher, second] = await agents('author', 'watcher', 'second');
    if (author === undefined || watcher === undefined || second === undefined) throw new Error('principals');
    const content = 'kafka consumer lag alarms fire every night at two';
    const texts = ['kafka consumer lag', 'kafka consumer lag alarms', 'kafka consumer lag alarms fire every night', 'kafka'];
    const beacons = [];
    for (const text of texts) beacons.push(await rt.facade.placeBeacon(watcher, { text, include_own: false, threshold: 0.2 }));
    const secondBeacon = await rt.facade.placeBeacon(second, { text: 'kafka consumer lag', include_own: false, threshold: 0.2 });
    const [cellVector, ...beaconVectors] = await rt.embedder.embed([content, ...texts]);
    const similarityTo = (vector: Float32Array | undefined): number =>
      Array.from(vector ?? []).reduce((sum, value, i) => sum + value * (cellVector?.[i] ?? 0), 0);
    const scores = beaconVectors.map(similarityTo);
    const nearest = beacons[scores.indexOf(Math.max(...scores))];
    expect(scores.filter((s) => s >= 0.2 - 0.15)).toHaveLength(texts.length);

    const node = await rt.facade.store(author, { content, cell_type: 'Risk', salience: 1 });
    const watcherDiffs = await inbox(watcher);
    expect(watcherDiffs.map((d) => ({ node: d.node_id, seq: d.seq, beacon: d.beacon_id }))).toEqual([
      { node: node.node_id, seq: 1, beacon: nearest?.beacon_id },
    ]);
    expect((await inbox(second)).map((d) => d.beacon_id)).toEqual([secondBeacon.beacon_id]);

    // An update of the same cell is a new change: one more diff, still one per recipient.
    await rt.facade.deleteCell(author, node.node_id);
    expect((await inbox(watcher)).map((d) => [d.op, d.seq])).toEqual([
      ['created', 1],
      ['deleted', 2],
    ]);
  });

  it('an inbox keeps the newest maxInboxDiffs diffs: a write beyond deletes the oldest and reports how many', async () => {
    const [author, watcher] = await agents('author', 'watcher');
    if (author === undefined || watcher === undefined) throw new Error('principals');
    await rt.facade.placeBeacon(watcher, { text: 'disk pressure on the ingest nodes', include_own: false, threshold: 0.2 });
    const before = signalled.length;
    for (let i = 0; i < 5; i++) await rt.facade.store(author, { content: `disk pressure on the ingest nodes, alert ${i}`, cell_type: 'Risk', salience: 0.8 });
    const mine = signalled.slice(before).filter((w) => w.recipientAgent === 'watcher' && w.tenantId === watcher.tenantId);
    expect(mine.map((w) => [w.diff.seq, w.trimmed])).toEqual([
      [1, 0],
      [2, 0],
      [3, 0],
      [4, 1],
      [5, 1],
    ]);
    expect((await inbox(watcher)).map((d) => d.seq)).toEqual([3, 4, 5]);
    const drained = await rt.facade.drainInbox(watcher, { page_size: 50 });
    expect(drained.diffs.map((d) => d.seq)).toEqual([3, 4, 5]);
  });
});
