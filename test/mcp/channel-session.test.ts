/**
 * One session's channel on a real facade (PGlite): the digest of what arrived while no session
 * dealt with it, the live memories after it, the trust gate on both, and the mark that keeps a
 * later session from announcing anything twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Diff } from '../../src/core/entities.js';
import type { Principal } from '../../src/core/principal.js';
import type { ChannelNotification } from '../../src/mcp/features/push/channel-event.js';
import { ChannelSession } from '../../src/mcp/features/push/channel-session.js';
import type { ChannelSettings } from '../../src/mcp/features/push/channel-session.js';
import { HandClock } from '../support/hand-clock.js';
import { createTestRuntime, type TestRuntime } from '../support/test-runtime.js';
import { waitFor } from '../support/wait-for.js';
import { freshTenant } from '../support/facade-expectations.js';

describe('ChannelSession', () => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await createTestRuntime();
  });
  afterAll(async () => rt.close());

  interface Agents {
    readonly reader: Principal;
    readonly trusted: Principal;
    readonly doubtful: Principal;
    store(who: Principal, content: string): Promise<void>;
    inbox(): Promise<Diff[]>;
  }

  async function agents(): Promise<Agents> {
    const tenant = freshTenant('chsession');
    const reader = await rt.principal({ tenant, agent: 'reader' });
    const trusted = await rt.principal({ tenant, agent: 'trusted', trust: 0.9 });
    const doubtful = await rt.principal({ tenant, agent: 'doubtful', trust: 0.2 });
    await rt.facade.placeBeacon(reader, { text: 'release freeze window', threshold: 0.2, include_own: false });
    return {
      reader,
      trusted,
      doubtful,
      async store(who, content): Promise<void> {
        await rt.facade.store(who, { content: `release freeze window: ${content}`, cell_type: 'Constraint', salience: 0.9 });
      },
      async inbox(): Promise<Diff[]> {
        return [...(await rt.facade.peekInbox(reader, { limit: 100 })).diffs];
      },
    };
  }

  function session(principal: Principal, settings: ChannelSettings, clock = new HandClock()): { session: ChannelSession; sent: ChannelNotification[]; clock: HandClock } {
    const sent: ChannelNotification[] = [];
    return { session: new ChannelSession({ facade: rt.facade, principal, settings, clock, send: (n) => sent.push(n) }), sent, clock };
  }

  it('announces what arrived while away as one digest, then each live memory, and a later session nothing twice', async () => {
    const a = await agents();
    for (let i = 0; i < 3; i++) await a.store(a.trusted, `away ${i}`);
    const first = session(a.reader, { minTrust: 0, maxPerMinute: 6 });
    first.session.start();
    await a.store(a.trusted, 'live one');
    const [live] = (await a.inbox()).slice(-1);
    first.session.push(live as Diff);
    await waitFor(() => first.sent.length === 2);
    expect(first.sent[0]?.params.meta).toMatchObject({ kind: 'digest', reason: 'reconnect', count: '3', source_agents: 'trusted' });
    expect(first.sent[1]?.params.meta).toMatchObject({ kind: 'memory', node_id: live?.node_id, source_agent: 'trusted', trust: '0.9' });
    await first.session.close();

    // Back again: nothing new, so nothing to say; then one store while away, announced once.
    const quiet = session(a.reader, { minTrust: 0, maxPerMinute: 6 });
    quiet.session.start();
    await quiet.session.close();
    expect(quiet.sent).toEqual([]);
    await a.store(a.trusted, 'while away again');
    const second = session(a.reader, { minTrust: 0, maxPerMinute: 6 });
    second.session.start();
    // The feed's catch-up hands over what the digest already covers: dropped.
    for (const diff of await a.inbox()) second.session.push(diff);
    await waitFor(() => second.sent.length === 1);
    await second.session.close();
    expect(second.sent.map((n) => [n.params.meta.kind, n.params.meta.count])).toEqual([['digest', '1']]);
  });

  it('withholds authors below the trust gate, live and in the digest, while the inbox keeps them', async () => {
    const a = await agents();
    await a.store(a.doubtful, 'away, doubtful');
    await a.store(a.trusted, 'away, trusted');
    const gated = session(a.reader, { minTrust: 0.5, maxPerMinute: 6 });
    gated.session.start();
    await a.store(a.doubtful, 'live, doubtful');
    await a.store(a.trusted, 'live, trusted');
    const [, , doubtfulLive, trustedLive] = await a.inbox();
    gated.session.push(doubtfulLive as Diff);
    gated.session.push(trustedLive as Diff);
    // The trusted memory comes after the doubtful one in seq order: when it is out, the other was weighed.
    await waitFor(() => gated.sent.length === 2);
    await gated.session.close();
    expect(gated.sent.map((n) => [n.params.meta.kind, n.params.meta.count ?? n.params.meta.source_agent])).toEqual([
      ['digest', '1'],
      ['memory', 'trusted'],
    ]);
    expect(gated.sent[0]?.params.content).toMatch(/from trusted;/);
    expect((await a.inbox()).map((d) => d.source_agent)).toEqual(['doubtful', 'trusted', 'doubtful', 'trusted']);
    // Withheld is dealt with: a later session does not bring the doubtful memory back.
    const later = session(a.reader, { minTrust: 0, maxPerMinute: 6 });
    later.session.start();
    await later.session.close();
    expect(later.sent).toEqual([]);
  });

  it('raises the mark before an event goes out, and lazily (once per interval) for what the gate withholds', async () => {
    const a = await agents();
    const running = session(a.reader, { minTrust: 0.5, maxPerMinute: 6 });
    running.session.start();
    await a.store(a.trusted, 'one');
    running.session.push((await a.inbox()).at(-1) as Diff);
    await waitFor(() => running.sent.length === 1);
    // A session opened the moment after has nothing to announce.
    expect((await rt.facade.channelBacklog(a.reader)).groups).toEqual([]);
    await a.store(a.doubtful, 'withheld');
    running.session.push((await a.inbox()).at(-1) as Diff);
    await a.store(a.trusted, 'two');
    running.session.push((await a.inbox()).at(-1) as Diff);
    await waitFor(() => running.sent.length === 2);
    await waitFor(async () => (await rt.facade.channelBacklog(a.reader)).groups.length === 0);
    // Withheld last: the mark follows once the interval passes, not before.
    await a.store(a.doubtful, 'withheld again');
    running.session.push((await a.inbox()).at(-1) as Diff);
    await waitFor(async () => (await rt.facade.channelBacklog(a.reader)).groups.length === 1);
    running.clock.advance(1_000);
    await waitFor(async () => (await rt.facade.channelBacklog(a.reader)).groups.length === 0);
    await running.session.close();
    expect(running.sent).toHaveLength(2);
  });

  it('leaves an event a close kept from going out for the next session to announce', async () => {
    const a = await agents();
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const marks: number[] = [];
    // The first mark write is held, so the close lands while the first event waits to go out.
    const facade = {
      channelBacklog: rt.facade.channelBacklog.bind(rt.facade),
      authorTrust: rt.facade.authorTrust.bind(rt.facade),
      async markChannelSettled(principal: Principal, seq: number): Promise<void> {
        marks.push(seq);
        if (marks.length === 1) await held;
        await rt.facade.markChannelSettled(principal, seq);
      },
    };
    const sent: ChannelNotification[] = [];
    const closing = new ChannelSession({ facade, principal: a.reader, settings: { minTrust: 0, maxPerMinute: 6 }, clock: new HandClock(), send: (n) => sent.push(n) });
    closing.start();
    await a.store(a.trusted, 'first');
    await a.store(a.trusted, 'second');
    for (const diff of await a.inbox()) closing.push(diff);
    await waitFor(() => marks.length === 1);
    const closed = closing.close();
    release();
    await closed;
    expect(sent).toEqual([]);
    // The first event's mark was written before the close; the second never left, so it is announced later.
    const later = session(a.reader, { minTrust: 0, maxPerMinute: 6 });
    later.session.start();
    await waitFor(() => later.sent.length === 1);
    await later.session.close();
    expect(later.sent[0]?.params.meta).toMatchObject({ kind: 'digest', reason: 'reconnect', count: '1' });
  });
});
