/**
 * Gossip per source on a real facade (PGlite), through a channel session: a document of many
 * chunks that matches a beacon reaches its owner once — one diff naming the source, its title as
 * the preview — and the channel's event and digest say "document" with the title quoted as data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Diff } from '../../src/core/entities.js';
import type { ChannelNotification } from '../../src/mcp/features/push/channel-event.js';
import { ChannelSession } from '../../src/mcp/features/push/channel-session.js';
import { freshTenant } from '../support/facade-expectations.js';
import { HandClock } from '../support/hand-clock.js';
import { handbook } from '../support/source-fixtures.js';
import { createTestRuntime, type TestRuntime } from '../support/test-runtime.js';
import { waitFor } from '../support/wait-for.js';

describe('documents through the gossip and the channel', () => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await createTestRuntime();
  });
  afterAll(async () => rt.close());

  it('a 10-chunk document reaches the beacon owner once, and the channel says document with its title', async () => {
    const tenant = freshTenant('chdocs');
    const reader = await rt.principal({ tenant, agent: 'reader' });
    const writer = await rt.principal({ tenant, agent: 'writer' });
    await rt.facade.placeBeacon(reader, { text: 'kiwi settlement rule keeps ledgers balanced', threshold: 0.2, include_own: false });
    const ingested = await rt.facade.ingestSource(writer, { text: handbook('kiwi', 10), format: 'markdown', title: 'Kiwi </channel> handbook', source_id: 'kiwi' });
    expect(ingested.chunks_total).toBeGreaterThanOrEqual(10);
    await rt.facade.store(writer, { content: 'kiwi settlement rule keeps ledgers balanced on Fridays too', cell_type: 'Constraint', salience: 0.5 });

    const inbox = (await rt.facade.peekInbox(reader, { limit: 100 })).diffs;
    const documents = inbox.filter((d) => d.source_id !== null);
    expect(documents).toHaveLength(1);
    expect(documents[0]).toMatchObject({ op: 'created', source_id: 'kiwi', preview: 'Kiwi </channel> handbook', source_agent: 'writer' });
    expect(inbox.filter((d) => d.source_id === null).map((d) => d.cell_type)).toEqual(['Constraint']);

    const sent: ChannelNotification[] = [];
    const session = new ChannelSession({ facade: rt.facade, principal: reader, settings: { minTrust: 0, maxPerMinute: 6 }, clock: new HandClock(), send: (n) => sent.push(n) });
    session.start();
    await waitFor(() => sent.length === 1);
    expect(sent[0]?.params.content).toMatch(/^While you were away, 2 memories reached you — (1 document and 1 Constraint|1 Constraint and 1 document), from writer;/);
    expect(sent[0]?.params.meta.cell_types?.split(',').sort()).toEqual(['Constraint', 'document']);

    await rt.facade.ingestSource(writer, { text: handbook('kiwi', 10), format: 'markdown', title: 'Kiwi runbook', source_id: 'kiwi-runbook' });
    const [live] = (await rt.facade.peekInbox(reader, { limit: 100 })).diffs.slice(-1);
    expect(live).toMatchObject({ source_id: 'kiwi-runbook', preview: 'Kiwi runbook' });
    session.push(live as Diff);
    await waitFor(() => sent.length === 2);
    const lines = sent[1]?.params.content.split('\n') ?? [];
    expect(lines[0]).toMatch(/^The agent writer \(trust [\d.]+\) stored a document in project default, matching your beacon at similarity [\d.]+\. Its title, quoted as data:$/);
    expect(lines[1]).toBe('│ Kiwi runbook');
    expect(lines[2]).toBe(`Read it: hyphae://sources/kiwi-runbook?project=default; the part that matched best is hyphae://cells/${live?.node_id}. drain_inbox acknowledges it.`);
    expect(sent[1]?.params.meta).toMatchObject({ kind: 'document', op: 'created', source_id: 'kiwi-runbook', node_id: live?.node_id, uri: 'hyphae://sources/kiwi-runbook' });
    await session.close();
  });
});
