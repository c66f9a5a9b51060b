import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Diff } from '../../src/core/entities.js';
import { UnavailableError } from '../../src/core/errors.js';
import { beaconSubject } from '../../src/mesh/bus.js';
import type { DiffEnvelope } from '../../src/mesh/bus.js';
import { NatsBus } from '../../src/mesh/nats-bus.js';
import { skipWithoutNatsServer, startNatsServer } from '../support/nats-server.js';
import type { NatsServer } from '../support/nats-server.js';
import { waitFor } from '../support/wait-for.js';

function envelope(seq: number): DiffEnvelope {
  const diff: Diff = {
    diff_id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    seq,
    op: 'created',
    node_id: '00000000-0000-4000-8000-000000000001',
    beacon_id: 'b1',
    similarity: 0.9,
    cell_type: 'Fact',
    salience: 0.5,
    source_agent: 'writer',
    project: 'p',
    scene_id: null,
    preview: 'a preview with "quotes" and ünïcode',
    created_at: new Date(0).toISOString(),
    supersedes: null,
    source_id: null,
  };
  return { tenantId: 'tenant.with dots', recipientAgent: 'reader', diff };
}

describe.skipIf(skipWithoutNatsServer())('NatsBus against a real nats-server', () => {
  let server: NatsServer;
  const buses: NatsBus[] = [];

  beforeAll(async () => {
    server = await startNatsServer();
  });

  afterAll(async () => {
    await Promise.all(buses.map((bus) => bus.close()));
    await server.stop();
  });

  async function bus(): Promise<NatsBus> {
    const connected = await NatsBus.connect({ servers: server.url, reconnectTimeWaitMs: 100, publishTimeoutMs: 2_000 });
    buses.push(connected);
    return connected;
  }

  it('carries envelopes between two connections, wildcards included, JSON intact', async () => {
    const publisher = await bus();
    const subscriber = await bus();
    const subject = beaconSubject('tenant.with dots', 'b1');
    const exact: DiffEnvelope[] = [];
    const wildcard: number[] = [];
    await subscriber.subscribe(subject, (e) => exact.push(e));
    await subscriber.subscribe('hyphae.*.beacon.>', (e) => wildcard.push(e.diff.seq));
    for (let seq = 1; seq <= 20; seq += 1) await publisher.publish(subject, envelope(seq));
    await waitFor(() => exact.length === 20 && wildcard.length === 20);
    expect(exact.map((e) => e.diff.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(exact[0]).toEqual(envelope(1));
    expect(wildcard).toEqual(exact.map((e) => e.diff.seq));
  });

  it('fails publish fast while NATS is down, signals the outage and the return, and resubscribes', async () => {
    const publisher = await bus();
    const subscriber = await bus();
    const subject = beaconSubject('t1', 'b-restart');
    const seen: number[] = [];
    await subscriber.subscribe(subject, (e) => seen.push(e.diff.seq));
    const changes: boolean[] = [];
    publisher.onConnectionChange((connected) => changes.push(connected));

    await server.stop();
    await waitFor(() => !publisher.isConnected() && !subscriber.isConnected());
    await expect(publisher.publish(subject, envelope(1))).rejects.toBeInstanceOf(UnavailableError);
    expect(changes).toEqual([false]);

    await server.start();
    await waitFor(() => publisher.isConnected() && subscriber.isConnected());
    expect(changes).toEqual([false, true]);
    // The subscription comes back with the connection; retry until the server has it again.
    await waitFor(async () => {
      await publisher.publish(subject, envelope(2));
      return seen.includes(2);
    });
    expect(seen.every((seq) => seq === 2)).toBe(true);
  });

  it('reports an unreachable server at connect time as UNAVAILABLE', async () => {
    await expect(NatsBus.connect({ servers: 'nats://127.0.0.1:1', connectTimeoutMs: 500 })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
  });
});
