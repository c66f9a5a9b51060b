/**
 * Export → import round trips on PGlite and native PostgreSQL (docs/export-format.md): the imported
 * database exports the same records (cells with provenance, chains and corroborations, scenes,
 * sessions, beacons, keys, inbox positions and waiting diffs); a second import adds nothing; the
 * restored keys work and the restored cells are recalled; a target with another embedder embeds
 * every text again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import type { ManagedMemoryFacade } from '../../src/service/index.js';
import type { Db } from '../../src/store/db.js';
import { freshTenant } from '../support/facade-expectations.js';
import { DATABASE_KINDS, exportLines, facadeOver, HASH, openPortability, populate, records, type PortabilitySetup, type Populated } from './portability-support.js';


describe.each(DATABASE_KINDS)('export → import round trip on $kind', { timeout: 180_000 }, ({ kind, skip }) => {
  let setup: PortabilitySetup;
  let source: Db;
  let facade: ManagedMemoryFacade;
  let team: Populated;
  const embedder = HASH();

  beforeAll(async () => {
    if (skip) return;
    setup = await openPortability(kind, embedder, 'port');
    ({ db: source, facade } = setup);
    team = await populate(facade, source, setup.tenant);
    const other = freshTenant('other');
    await populate(facade, source, other);
  });
  afterAll(() => setup?.close());


  it.skipIf(skip)('holds every record type of the populated tenant', async () => {
    const lines = await exportLines(source, embedder, team.tenant, false);
    const types = new Set(lines.map((line) => (JSON.parse(line) as { type: string }).type));
    expect([...types]).toEqual(['header', 'tenant', 'key', 'scene', 'session', 'cell', 'corroboration', 'beacon', 'inbox', 'diff', 'end']);
    const cells = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((r) => r.type === 'cell');
    expect(cells.map((c) => c.layer).sort()).toEqual(['L0', 'L0', 'L0', 'L0', 'L1', 'L2']);
    expect(cells.some((c) => c.superseded_by !== null)).toBe(true);
    expect(cells.some((c) => (c.reinforcement_keys as unknown[]).length === 1 && c.corroborations === 1)).toBe(true);
    // The reinforcing store's own statement, with what it carried.
    const reinforced = cells.find((c) => c.layer === 'L0' && c.corroborations === 1);
    const corroborations = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((r) => r.type === 'corroboration');
    expect(corroborations).toEqual([
      expect.objectContaining({ tenant: team.tenant, node_id: reinforced?.node_id, agent: 'alice', content: team.recallable, salience: 0.5, similarity: 1 }),
    ]);
  });

  it.skipIf(skip)('imports a whole-database export with vectors into an empty database: the same records come back out', async () => {
    const lines = await exportLines(source, embedder, null, true);
    const target = await setup.databases.open(embedder);
    // Into an empty database: loaded without the vector indexes, which are built at the end.
    const summary = await setup.importInto(target, lines, { bulkLoadFrom: 1 });
    expect(summary.vectors_from_file).toBe(true);
    const indexes = await target.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE indexname IN ('cells_embedding', 'beacons_embedding') ORDER BY 1`);
    expect(indexes.rows.map((row) => row.indexname)).toEqual(['beacons_embedding', 'cells_embedding']);
    for (const counts of Object.values(summary.records)) expect(counts.added).toBe(counts.in_file);
    expect(summary.records.cell.in_file).toBe(12);
    expect(records(await exportLines(target, embedder, null, true))).toEqual(records(lines));

    const again = await setup.importInto(target, lines, { bulkLoadFrom: 1 });
    for (const counts of Object.values(again.records)) expect(counts.added).toBe(0);
    expect(records(await exportLines(target, embedder, null, true))).toEqual(records(lines));
  });

  it.skipIf(skip)("restores keys that authenticate as before and cells that are recalled, with the inbox where it was", async () => {
    const lines = await exportLines(source, embedder, team.tenant, false);
    const target = await setup.databases.open(embedder);
    await setup.importInto(target, lines, { tenant: team.tenant });
    const restored = facadeOver(target, embedder);
    try {
      const admin = await restored.authenticate(team.adminKey);
      expect(admin).toMatchObject({ tenantId: team.tenant, agent: 'alice', roles: ['admin'] });
      const hits = await restored.recall(admin, { query: team.recallable, k: 3 }, { withNodes: true });
      expect(hits.results.map((hit) => hit.node?.content)).toContain(team.recallable);
      // Imported cells carry their lexical terms: found by their words alone.
      const lexical = await restored.recall(admin, { query: 'manual approval before production deploys', k: 3, mode: 'lexical' }, { withNodes: true });
      expect(lexical.results[0]?.node?.content).toBe(team.recallable);
      const before = await facade.peekInbox(team.admin, { limit: 50 });
      expect(await restored.peekInbox(admin, { limit: 50 })).toEqual(before);
      expect(before.diffs.length).toBeGreaterThan(0);
    } finally {
      await restored.close();
    }
  });

  it.skipIf(skip)('embeds every text again in a target whose embedder differs, keeping every other field', async () => {
    const lines = await exportLines(source, embedder, team.tenant, true);
    const other = new HashEmbedder({ dimension: 256 });
    const target = await setup.databases.open(other);
    const summary = await setup.importInto(target, lines, { tenant: team.tenant, embedder: other });
    expect(summary.vectors_from_file).toBe(false);
    expect(records(await exportLines(target, other, team.tenant, false))).toEqual(records(await exportLines(source, embedder, team.tenant, false)));
    const vectors = await target.query<{ n: number }>('SELECT count(*)::int AS n FROM cells WHERE vector_dims(embedding) = 256');
    expect(vectors.rows[0]?.n).toBe(summary.records.cell.in_file);
  });

  it.skipIf(skip)("exports one project without the tenant's keys, inboxes and diffs, and imports it", async () => {
    const lines = await exportLines(source, embedder, team.tenant, false, 'alpha');
    const types = new Set(lines.map((line) => (JSON.parse(line) as { type: string }).type));
    expect([...types]).toEqual(['header', 'tenant', 'scene', 'session', 'cell', 'corroboration', 'beacon', 'end']);
    const target = await setup.databases.open(embedder);
    await setup.importInto(target, lines, { tenant: team.tenant });
    expect(records(await exportLines(target, embedder, team.tenant, false))).toEqual(records(lines));
  });
});
