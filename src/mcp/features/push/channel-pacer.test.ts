import { describe, expect, it } from 'vitest';
import type { Diff } from '../../../core/entities.js';
import type { ChannelEvent, ChannelTally } from './channel-event.js';
import { ChannelPacer } from './channel-pacer.js';
import { HandClock } from '../../../../test/support/hand-clock.js';

function diff(seq: number, cellType: Diff['cell_type'] = 'Fact', agent = 'bob'): Diff {
  return {
    diff_id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    seq,
    op: 'created',
    node_id: `10000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    beacon_id: '20000000-0000-4000-8000-000000000000',
    similarity: 0.9,
    cell_type: cellType,
    salience: 0.5,
    source_agent: agent,
    project: 'payments',
    scene_id: null,
    preview: `memory ${seq}`,
    created_at: '2026-12-05T00:00:00.000Z',
    supersedes: null,
    source_id: null,
  };
}

const NOTHING: ChannelTally = { count: 0, byType: new Map(), byAuthor: new Map() };

interface Sent {
  readonly event: ChannelEvent;
  readonly seq: number;
  readonly at: number;
}

function pacer(maxPerMinute = 6): { pacer: ChannelPacer; clock: HandClock; sent: Sent[]; settled: number[] } {
  const clock = new HandClock();
  const sent: Sent[] = [];
  const settled: number[] = [];
  const paced = new ChannelPacer({ maxPerMinute, clock, emit: (event, seq) => sent.push({ event, seq, at: clock.now() }), onSettled: (seq) => settled.push(seq) });
  return { pacer: paced, clock, sent, settled };
}

describe('ChannelPacer', () => {
  it('sends memories one by one within the per-minute budget', () => {
    const { pacer: p, sent } = pacer();
    p.resume(NOTHING, 0);
    for (let seq = 1; seq <= 6; seq++) p.offer(diff(seq), 0.8);
    expect(sent.map((s) => [s.event.meta.kind, s.event.meta.node_id, s.seq])).toEqual(
      [1, 2, 3, 4, 5, 6].map((seq) => ['memory', diff(seq).node_id, seq]),
    );
    expect(p.settledSeq).toBe(6);
  });

  it('turns a burst of 50 into 6 memories and one digest of the other 44 once the burst settles', () => {
    const { pacer: p, clock, sent } = pacer();
    p.resume(NOTHING, 0);
    for (let seq = 1; seq <= 50; seq++) {
      p.offer(diff(seq, seq % 3 === 0 ? 'Risk' : 'Fact', seq % 2 === 0 ? 'carol' : 'bob'), 0.8);
      clock.advance(100);
    }
    expect(sent).toHaveLength(6);
    expect(p.settledSeq).toBe(6);
    clock.advance(2_000);
    expect(sent).toHaveLength(7);
    const digest = sent[6];
    expect(digest?.event.meta).toMatchObject({ kind: 'digest', reason: 'pace', count: '44' });
    expect(digest?.event.content).toBe('44 more memories reached you — 30 Facts and 14 Risks, from bob and carol; drain_inbox to read them.');
    expect(digest?.seq).toBe(50);
    expect(p.settledSeq).toBe(50);
    clock.advance(10 * 60_000);
    expect(sent).toHaveLength(7);
  });

  it('sends at most one digest per interval while memories keep coming, and never lets one overtake a waiting digest', () => {
    const { pacer: p, clock, sent } = pacer(2);
    p.resume(NOTHING, 0);
    // One memory a second for three minutes: the burst never settles.
    for (let seq = 1; seq <= 180; seq++) {
      p.offer(diff(seq), 0.5);
      clock.advance(1_000);
    }
    clock.advance(120_000);
    const digests = sent.filter((s) => s.event.meta.kind === 'digest');
    const singles = sent.filter((s) => s.event.meta.kind === 'memory');
    // Nothing lost: every memory went out alone or in a digest.
    expect(digests.reduce((sum, d) => sum + Number(d.event.meta.count), 0) + singles.length).toBe(180);
    // Digests a minute apart at least, and a single memory never overtakes a waiting digest.
    expect(digests.map((d) => d.at)).toEqual([62_000, 124_000, 184_000]);
    const seqs = sent.map((s) => s.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    // Never more than two single memories in any minute.
    for (const single of singles) expect(singles.filter((other) => other.at > single.at - 60_000 && other.at <= single.at).length).toBeLessThanOrEqual(2);
    expect(p.settledSeq).toBe(180);
  });

  it('goes back to single memories once the minute that spent the budget has passed', () => {
    const { pacer: p, clock, sent } = pacer(1);
    p.resume(NOTHING, 0);
    p.offer(diff(1), 1);
    p.offer(diff(2), 1);
    clock.advance(60_000);
    expect(sent.map((s) => s.event.meta.kind)).toEqual(['memory', 'digest']);
    clock.advance(1);
    p.offer(diff(3), 1);
    expect(sent.map((s) => s.event.meta.kind)).toEqual(['memory', 'digest', 'memory']);
  });

  it('sends digests only when the budget is 0', () => {
    const { pacer: p, clock, sent } = pacer(0);
    p.resume(NOTHING, 0);
    p.offer(diff(1), 1);
    clock.advance(2_000);
    expect(sent.map((s) => [s.event.meta.kind, s.event.meta.count])).toEqual([['digest', '1']]);
  });

  it('counts a diff about a source as a document in its digest', () => {
    const { pacer: p, clock, sent } = pacer(0);
    p.resume(NOTHING, 0);
    p.offer({ ...diff(1, 'Context'), source_id: 'handbook', preview: 'Handbook' }, 1);
    p.offer({ ...diff(2, 'Context'), source_id: 'runbook', preview: 'Runbook' }, 1);
    p.offer(diff(3, 'Context'), 1);
    clock.advance(2_000);
    expect(sent.map((s) => s.event.content)).toEqual(['3 more memories reached you — 2 documents and 1 Context, from bob; drain_inbox to read them.']);
  });

  it('announces what arrived while away as one digest, and none of it again one by one', () => {
    const { pacer: p, clock, sent } = pacer();
    // The transport subscribed first: the feed's catch-up arrives before the backlog is known.
    p.offer(diff(12), 0.8);
    p.offer(diff(13), 0.8);
    p.resume({ count: 13, byType: new Map([['Fact', 13]]), byAuthor: new Map([['bob', 13]]) }, 13);
    p.offer(diff(13), 0.8);
    p.offer(diff(14), 0.8);
    clock.advance(60_000);
    expect(sent.map((s) => [s.event.meta.kind, s.event.meta.reason ?? s.event.meta.node_id, s.seq])).toEqual([
      ['digest', 'reconnect', 13],
      ['memory', diff(14).node_id, 14],
    ]);
    expect(sent[0]?.event.content).toBe('While you were away, 13 memories reached you — 13 Facts, from bob; drain_inbox to read them.');
  });

  it('resumes silently when nothing arrived while away', () => {
    const { pacer: p, sent, settled } = pacer();
    p.resume(NOTHING, 40);
    p.offer(diff(40), 1);
    expect(sent).toEqual([]);
    expect(settled).toEqual([40]);
  });

  it('never announces a withheld memory, yet counts it dealt with', () => {
    const { pacer: p, clock, sent } = pacer(1);
    p.resume(NOTHING, 0);
    p.withhold(1);
    expect(p.settledSeq).toBe(1);
    p.offer(diff(2), 1);
    p.offer(diff(3), 1);
    p.withhold(4);
    expect(p.settledSeq).toBe(2);
    clock.advance(2_000);
    expect(sent.map((s) => [s.event.meta.kind, s.event.meta.count ?? s.event.meta.node_id])).toEqual([
      ['memory', diff(2).node_id],
      ['digest', '1'],
    ]);
    expect(p.settledSeq).toBe(4);
  });

  it('drops a memory it already dealt with (a republish, a second relay)', () => {
    const { pacer: p, sent } = pacer();
    p.resume(NOTHING, 0);
    p.offer(diff(1), 1);
    p.offer(diff(1), 1);
    expect(sent).toHaveLength(1);
  });

  it('sends nothing after close: a gathering digest stays unannounced for the next session', () => {
    const { pacer: p, clock, sent } = pacer(1);
    p.resume(NOTHING, 0);
    p.offer(diff(1), 1);
    p.offer(diff(2), 1);
    p.close();
    clock.advance(120_000);
    p.offer(diff(3), 1);
    expect(sent).toHaveLength(1);
    expect(p.settledSeq).toBe(1);
  });
});
