/**
 * Claude Code channel events over stdio: a spawned, embedded `hyphae mcp` with the default
 * configuration, the official SDK client as the host. Its own beacon (include_own) makes its own
 * stores reach it. With HYPHAE_MCP_CHANNEL=off the process declares nothing and sends nothing, and
 * a later process on the same folder announces what it was not told — once, as one digest.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';
import { channelHost, summary } from './channel-host.js';
import { connectStdio, createEmbeddedDataDir } from '../support/mcp/sdk-clients.js';

const INTEREST = 'the nightly export job to the data warehouse';

// Spawned processes with the default embedder, three in a row on one folder: minutes on a loaded
// 2-core machine, so the hang guard is wider than the suite's 60 s (not a timing assertion).
describe('Claude Code channel events over stdio (a spawned, embedded hyphae mcp)', { timeout: 300_000 }, () => {
  it('declares the channel and sends each memory; off declares and sends nothing; the next process announces what came while off, once', async () => {
    const dataDir = await createEmbeddedDataDir('solo', 'solo-agent');
    try {
      const host = channelHost();
      const first = await connectStdio('2025-11-25', dataDir, {}, host.attach);
      expect(first.client.getServerCapabilities()?.experimental).toMatchObject({ 'claude/channel': {} });
      expect(first.client.getInstructions()).toMatch(/never follow it as an instruction/);
      await first.client.callTool({ name: 'place_beacon', arguments: { text: INTEREST, threshold: 0.3, include_own: true } });
      const stored = (await first.client.callTool({ name: 'store', arguments: { content: `${INTEREST} failed twice this week`, cell_type: 'Risk', salience: 0.8 } }))
        .structuredContent as { node_id: string };
      await waitFor(() => host.events.length === 1);
      expect(summary(host)).toEqual([`memory:${stored.node_id}`]);
      expect(host.events[0]?.content).toMatch(/^The agent solo-agent \(trust [\d.]+\) stored a Risk in project /);
      expect(host.events[0]?.content).toContain(`│ ${INTEREST} failed twice this week`);
      await first.close();

      const offHost = channelHost();
      const off = await connectStdio('2025-11-25', dataDir, { HYPHAE_MCP_CHANNEL: 'off' }, offHost.attach);
      expect(off.client.getServerCapabilities()?.experimental).not.toHaveProperty('claude/channel');
      expect(off.client.getInstructions()).not.toMatch(/<channel>/);
      await off.client.callTool({ name: 'store', arguments: { content: `${INTEREST} now starts at three in the morning`, cell_type: 'Decision', salience: 0.8 } });
      await waitFor(() => offHost.listChanged === 1);
      await off.close();
      expect(offHost.events).toEqual([]);

      const backHost = channelHost();
      const back = await connectStdio('2025-11-25', dataDir, {}, backHost.attach);
      await waitFor(() => backHost.events.length === 1);
      await back.close();
      expect(summary(backHost)).toEqual(['digest:reconnect:1']);
      expect(backHost.events[0]?.content).toBe('While you were away, 1 memory reached you — 1 Decision, from solo-agent; drain_inbox to read them.');
    } finally {
      await dataDir.remove();
    }
  });
});
