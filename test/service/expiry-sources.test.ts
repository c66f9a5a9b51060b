/**
 * Expiry of sources (docs/expiry.md): a source ingested with ttl_seconds 2 is read, listed,
 * numbered, paged by chunk, walked from and recalled through its chunks while it lives; once 2 s
 * have passed none of those returns it (a read by id is NOT_FOUND) though no sweep ran, and the
 * sweep then deletes the source with its chunks. Both fields at once, or a past instant, are refused.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/principal.js';
import { expectInvalidField, freshTenant } from '../support/facade-expectations.js';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { waitFor } from '../support/wait-for.js';

describe.each(TEST_DRIVERS)('a source with ttl_seconds on %s', (driver) => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await createTestRuntime({ driver });
  });
  afterAll(async () => rt.close());

  /** What each source read answers about the source, as text. */
  const reads = (p: Principal, sourceId: string): Record<string, () => Promise<unknown>> => ({
    readSource: () => rt.facade.readSource(p, { source_id: sourceId }).catch(() => null),
    listSources: () => rt.facade.listSources(p, {}),
    sourceStatus: () => rt.facade.sourceStatus(p, { source_id: sourceId }).catch(() => null),
    sourceChunks: () => rt.facade.sourceChunks(p, { source_id: sourceId }).catch(() => null),
    numberedSources: () => rt.facade.numberedSources(p, { kind: 'knowledge' }),
    sourceSubgraph: () => rt.facade.sourceSubgraph(p, { source_id: sourceId }, {}).catch(() => null),
    recall: () => rt.facade.recall(p, { query: 'the lighthouse keeper logs the tides', k: 5, kind: 'knowledge' }),
  });

  const seen = async (read: () => Promise<unknown>, sourceId: string, chunkIds: readonly string[]): Promise<boolean> => {
    const answer = JSON.stringify(await read()) ?? '';
    return answer.includes(sourceId) || chunkIds.some((id) => answer.includes(id));
  };

  it('is gone from every source read once it expired, with no sweep run, and the sweep deletes it with its chunks', async () => {
    const author = await rt.principal({ tenant: freshTenant(), agent: 'author' });
    const text = `# Tides\n\nThe lighthouse keeper logs the tides ${randomUUID()} every morning.\n\nThe lamp is trimmed at dusk.`;
    const living = await rt.facade.ingestSource(author, { text, format: 'markdown', title: 'tides', ttl_seconds: 3600 });
    const expiring = await rt.facade.ingestSource(author, { text, format: 'markdown', title: 'tides', ttl_seconds: 2 });
    const chunkIds = async (sourceId: string): Promise<string[]> => {
      const { rows } = await rt.db.query<{ id: string }>('SELECT node_id::text AS id FROM cells WHERE source_id = $1', [sourceId]);
      return rows.map((row) => row.id);
    };
    const livingChunks = await chunkIds(living.source_id);
    const expiringChunks = await chunkIds(expiring.source_id);
    expect(expiringChunks.length).toBeGreaterThan(0);
    for (const [name, read] of Object.entries(reads(author, living.source_id))) {
      expect(await seen(read, living.source_id, livingChunks), `${name} while it lives`).toBe(true);
    }
    const { rows: expiry } = await rt.db.query<{ at: Date }>('SELECT expires_at AS at FROM sources WHERE source_id = $1', [expiring.source_id]);
    const expiresAt = new Date(expiry[0]?.at ?? 0).getTime();
    await waitFor(() => Date.now() > expiresAt + 50);
    for (const [name, read] of Object.entries(reads(author, expiring.source_id))) {
      expect(await seen(read, expiring.source_id, expiringChunks), `${name} after expiry`).toBe(false);
    }
    expect((await chunkIds(expiring.source_id)).length, 'no sweep ran: its chunks are still rows').toBe(expiringChunks.length);

    const sweep = await rt.facade.sweepExpired();
    expect(sweep.sources).toBeGreaterThanOrEqual(1);
    expect(await chunkIds(expiring.source_id)).toEqual([]);
    const { rows } = await rt.db.query('SELECT 1 FROM sources WHERE source_id = $1', [expiring.source_id]);
    expect(rows).toEqual([]);
    expect(await chunkIds(living.source_id)).toHaveLength(livingChunks.length);
  });

  it('refuses both fields or a past instant, naming the field, and ingests nothing', async () => {
    const author = await rt.principal({ tenant: freshTenant(), agent: 'author' });
    await expectInvalidField(rt.facade.ingestSource(author, { text: 'x y z', ttl_seconds: 5, expires_at: '2999-01-01T00:00:00Z' }), 'ttl_seconds');
    await expectInvalidField(rt.facade.ingestSource(author, { text: 'x y z', expires_at: '2001-01-01T00:00:00Z' }), 'expires_at');
    expect((await rt.facade.listSources(author, {})).sources).toEqual([]);
  });
});
