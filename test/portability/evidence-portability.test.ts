/**
 * Learnt evidence and expiry through export and import (format version 4; docs/export-format.md,
 * docs/feedback-learning.md), on PGlite and native PostgreSQL: an export holds each live cell's
 * evidence after the relations, with its vector, and the expiry of cells and sources; an import
 * restores both, so recall with learning ranks in the target as in the source; without the file's
 * vectors (or into another embedder's database) evidence is embedded again from its text and
 * evidence without text is dropped; a version 3 file still imports; malformed evidence lines are
 * refused naming the line; evidence never reaches another tenant's cell; a tenant's import weighs it
 * no more than its sender's keys in the target would.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import type { Principal } from '../../src/core/principal.js';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../../src/service/index.js';
import { insertEvidence } from '../../src/store/cell-evidence-repository.js';
import type { Db } from '../../src/store/db.js';
import { toVectorParam } from '../../src/store/vector-param.js';
import { expectCode, freshTenant } from '../support/facade-expectations.js';
import { DATABASE_KINDS, exportLines, HASH, openPortability, type PortabilitySetup } from './portability-support.js';

// Feature hashing ranks the near miss first for the question (it shares its words); evidence lifts the answer.
const ANSWER = 'The holiday release freeze starts on the fifteenth of December.';
const NEAR_MISS = 'Can we ship the christmas party photos over the shared drive?';
const HASHED_ONLY = 'Billing exports run every night at two.';
const QUESTION = 'can we ship code over christmas';
const EXPIRES = '2099-01-01T00:00:00.000000Z';

interface StoredEvidence {
  readonly evidence_id: string;
  readonly node_id: string;
  readonly weight: number;
  readonly trust: number;
  readonly agent: string;
  readonly label: string;
  readonly request_id: string;
  readonly query_text: string | null;
  readonly embedding: string;
}

async function storedEvidence(db: Db, tenant: string): Promise<StoredEvidence[]> {
  const { rows } = await db.query<StoredEvidence>(
    `SELECT evidence_id::text AS evidence_id, node_id::text AS node_id, weight, trust, agent, label, request_id, query_text, embedding::text AS embedding
       FROM cell_evidence WHERE tenant_id = $1 ORDER BY evidence_id`,
    [tenant],
  );
  return rows;
}

const learningFacade = (db: Db, embedder: Embedder): ManagedMemoryFacade =>
  createMemoryFacade({ db, embedder, authCacheTtlMs: 0, config: { hitFlushIntervalMs: 3_600_000, feedbackLearning: true } });

describe.each(DATABASE_KINDS)('learnt evidence and expiry through export and import on $kind', { timeout: 180_000 }, ({ kind, skip }) => {
  const embedder = HASH();
  let setup: PortabilitySetup;
  let source: Db;
  let facade: ManagedMemoryFacade;
  let tenant: string;
  let alice: Principal;
  let bob: Principal;
  let ids: { answer: string; nearMiss: string; hashedOnly: string; expired: string };
  let lines: string[];

  beforeAll(async () => {
    if (skip) return;
    setup = await openPortability(kind, embedder, 'learnt', learningFacade);
    ({ db: source, facade, tenant } = setup);
    const { keys } = setup;
    alice = await facade.authenticate((await keys.createKey({ tenant, agent: 'alice', roles: ['admin'] })).key);
    bob = await facade.authenticate((await keys.createKey({ tenant, agent: 'bob', roles: ['writer'], trust: 0.7 })).key);
    const store = async (content: string, extra: Record<string, unknown> = {}): Promise<string> => (await facade.store(bob, { content, cell_type: 'Fact', salience: 0.5, ...extra })).node_id;
    ids = {
      answer: await store(ANSWER, { expires_at: EXPIRES }),
      nearMiss: await store(NEAR_MISS),
      hashedOnly: await store(HASHED_ONLY),
      expired: await store('The old freeze started in November.'),
    };
    await facade.ingestSource(bob, { text: 'Freeze rules.\n\nNo deploys in the freeze.', source_id: 'freeze', expires_at: EXPIRES });
    const { request_id } = await facade.recall(bob, { query: QUESTION, k: 5 });
    await facade.submitFeedback(bob, { request_id, ground_truth_ids: [ids.answer] });
    // Evidence whose query only a hash was logged for, and evidence of a cell that has expired since.
    const [vector] = await embedder.embed(['when do billing exports run']);
    const judged = { tenantId: tenant, embedding: toVectorParam(Array.from(vector ?? [])), weight: 0.5, trust: 0.5, agent: 'bob', label: 'agent' as const, now: new Date() };
    await insertEvidence(source, { ...judged, nodeIds: [ids.hashedOnly], requestId: randomUUID(), queryText: null });
    await insertEvidence(source, { ...judged, nodeIds: [ids.expired], requestId: randomUUID(), queryText: 'when did the old freeze start' });
    await source.query("UPDATE cells SET expires_at = now() - interval '1 minute' WHERE node_id = $1", [ids.expired]);
    lines = await exportLines(source, embedder, tenant, true);
  });

  afterAll(() => setup?.close());

  const ofType = (type: string, from: readonly string[] = lines): Record<string, unknown>[] =>
    from.filter((line) => line.startsWith(`{"type":"${type}"`)).map((line) => JSON.parse(line) as Record<string, unknown>);
  const ranking = async (over: ManagedMemoryFacade, mode: 'vector' | 'hybrid'): Promise<unknown> =>
    (await over.recall(bob, { query: QUESTION, k: 4, mode })).results.map(({ node_id, distance, score }) => ({ node_id, distance, score }));

  it.skipIf(skip)("exports each live cell's evidence after the relations, with its vector; an import restores it and recall with learning ranks as in the source", async () => {
    expect(JSON.parse(lines[0] as string)).toMatchObject({ version: 4 });
    const evidence = ofType('evidence');
    expect(evidence.map((e) => [e.node_id, e.query_text, e.agent, e.trust, e.weight, e.label])).toEqual(
      expect.arrayContaining([
        [ids.answer, QUESTION, 'bob', expect.closeTo(0.7, 5), expect.closeTo(0.7, 5), 'agent'],
        [ids.hashedOnly, null, 'bob', 0.5, 0.5, 'agent'],
      ]),
    );
    // The expired cell and what was learnt for it are not exported.
    expect(evidence).toHaveLength(2);
    expect(lines.some((line) => line.includes(ids.expired))).toBe(false);
    expect((evidence[0]?.embedding as number[]).length).toBe(embedder.dimension);
    const types = lines.map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types.lastIndexOf('cell')).toBeLessThan(types.indexOf('evidence'));
    expect(JSON.parse(lines[lines.length - 1] as string)).toMatchObject({ counts: { evidence: 2 } });

    const target = await setup.databases.open(embedder);
    const summary = await setup.importInto(target, lines);
    expect(summary).toMatchObject({ version: 4, vectors_from_file: true, records: { evidence: { in_file: 2, added: 2 } } });
    const expected = (await storedEvidence(source, tenant)).filter((e) => e.node_id !== ids.expired);
    expect(await storedEvidence(target, tenant)).toEqual(expected);
    const restored = learningFacade(target, embedder);
    try {
      for (const mode of ['vector', 'hybrid'] as const) expect(await ranking(restored, mode)).toEqual(await ranking(facade, mode));
      expect(((await ranking(restored, 'vector')) as { node_id: string }[])[0]?.node_id).toBe(ids.answer);
    } finally {
      await restored.close();
    }
    // Importing the file again adds nothing.
    expect((await setup.importInto(target, lines)).records.evidence).toEqual({ in_file: 2, added: 0 });
  });

  it.skipIf(skip)("keeps the expiry of cells and sources: exported, and imported as it was", async () => {
    const expiryOf = (line: Record<string, unknown> | undefined): unknown => line?.expires_at;
    const cells = ofType('cell');
    expect(expiryOf(cells.find((c) => c.node_id === ids.answer))).toBe(EXPIRES);
    expect(expiryOf(cells.find((c) => c.node_id === ids.nearMiss))).toBeNull();
    expect(expiryOf(ofType('source')[0])).toBe(EXPIRES);
    // A chunk carries its source's expiry.
    const chunks = cells.filter((c) => c.source_id === 'freeze');
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.every((chunk) => expiryOf(chunk) === EXPIRES)).toBe(true);
    const target = await setup.databases.open(embedder);
    await setup.importInto(target, lines);
    const read = async (sql: string): Promise<unknown[]> => (await target.query<{ at: Date | null }>(sql, [tenant])).rows.map((r) => r.at?.toISOString() ?? null);
    expect(await read('SELECT expires_at AS at FROM sources WHERE tenant_id = $1')).toEqual(['2099-01-01T00:00:00.000Z']);
    const cellExpiry = await target.query<{ node_id: string; at: Date | null }>('SELECT node_id::text AS node_id, expires_at AS at FROM cells WHERE tenant_id = $1', [tenant]);
    expect(cellExpiry.rows.find((r) => r.node_id === ids.answer)?.at?.toISOString()).toBe('2099-01-01T00:00:00.000Z');
    expect(cellExpiry.rows.find((r) => r.node_id === ids.nearMiss)?.at).toBeNull();
  });

  it.skipIf(skip)("without the file's vectors, or into another embedder's database, embeds evidence again from its text and drops evidence without text", async () => {
    const other = new HashEmbedder({ dimension: 64 });
    const target = await setup.databases.open(other);
    const summary = await setup.importInto(target, lines, { embedder: other });
    expect(summary).toMatchObject({ vectors_from_file: false, records: { evidence: { in_file: 2, added: 1 } } });
    const [restored] = await storedEvidence(target, tenant);
    expect(restored).toMatchObject({ node_id: ids.answer, query_text: QUESTION });
    const [vector] = await other.embed([QUESTION]);
    (JSON.parse(restored?.embedding ?? '[]') as number[]).forEach((x, i) => expect(x).toBeCloseTo(vector?.[i] ?? NaN, 5));
    const withoutVectors = await setup.databases.open(embedder);
    expect((await setup.importInto(withoutVectors, await exportLines(source, embedder, tenant, false))).records.evidence).toEqual({ in_file: 2, added: 1 });
  });

  it.skipIf(skip)('imports a version 3 file, which has no evidence and no expiry', async () => {
    const v3 = lines
      .filter((line) => !line.startsWith('{"type":"evidence"'))
      .map((line) => {
        const value = JSON.parse(line) as Record<string, unknown>;
        if (value.type === 'header') return JSON.stringify({ ...value, version: 3 });
        if (value.type === 'end') {
          const { evidence: _evidence, ...counts } = value.counts as Record<string, number>;
          return JSON.stringify({ type: 'end', counts });
        }
        if (!['cell', 'source', 'diff'].includes(value.type as string)) return line;
        const { expires_at: _expiry, ...rest } = value;
        return JSON.stringify(rest);
      });
    const target = await setup.databases.open(embedder);
    const summary = await setup.importInto(target, v3);
    expect(summary).toMatchObject({ version: 3, records: { evidence: { in_file: 0, added: 0 } } });
    expect(summary.records.cell.added).toBe(summary.records.cell.in_file);
    expect(summary.records.cell.added).toBeGreaterThan(3);
    expect((await target.query('SELECT 1 FROM cells WHERE tenant_id = $1 AND expires_at IS NOT NULL', [tenant])).rows).toEqual([]);
  });

  /** The export with its first evidence line changed, parsed as the import reads it. */
  const withEvidence = (change: (evidence: Record<string, unknown>) => Record<string, unknown>): string[] => {
    const at = lines.findIndex((line) => line.startsWith('{"type":"evidence"'));
    return lines.map((line, i) => (i === at ? JSON.stringify(change(JSON.parse(line) as Record<string, unknown>)) : line));
  };

  it.skipIf(skip)('refuses a malformed evidence line naming the line, with nothing written', async () => {
    const line = lines.findIndex((l) => l.startsWith('{"type":"evidence"')) + 1;
    const target = await setup.databases.open(embedder);
    const cases: [string, (e: Record<string, unknown>) => Record<string, unknown>][] = [
      ['weight', (e) => ({ ...e, weight: 1.5 })],
      ['label', (e) => ({ ...e, label: 'robot' })],
      ['agent', (e) => ({ ...e, agent: 'bad\nname' })],
      ['embedding', (e) => ({ ...e, embedding: [0.5, 0.5] })],
      ['gain', (e) => ({ ...e, gain: 1 })],
    ];
    for (const [field, change] of cases) {
      const error = await expectCode(setup.importInto(target, withEvidence(change)), 'INVALID_ARGUMENT');
      expect(error.message).toContain(`line ${line}:`);
      expect(JSON.stringify(error.details)).toContain(field);
    }
    expect((await target.query('SELECT 1 FROM cells')).rows).toEqual([]);
  });

  it.skipIf(skip)("never reaches another tenant's cell: evidence naming one is not added, and an evidence id another tenant holds is refused", async () => {
    const target = await setup.databases.open(embedder);
    await setup.importInto(target, lines);
    const stranger = freshTenant('stranger');
    const strangerFacade = learningFacade(target, embedder);
    try {
      const carol = await strangerFacade.authenticate((await createKeyAdministration(target).createKey({ tenant: stranger, agent: 'carol', roles: ['admin'] })).key);
      const theirs = (await strangerFacade.store(carol, { content: NEAR_MISS, cell_type: 'Fact', salience: 0.5 })).node_id;
      const aimed = withEvidence((e) => ({ ...e, evidence_id: randomUUID(), request_id: randomUUID(), node_id: theirs }));
      expect((await setup.importInto(target, aimed)).records.evidence).toEqual({ in_file: 2, added: 0 });
      expect(await storedEvidence(target, stranger)).toEqual([]);
      const [taken] = await storedEvidence(target, tenant);
      const moved = withEvidence((e) => ({ ...e, tenant: stranger, evidence_id: taken?.evidence_id, agent: 'carol' })).filter((line) => !line.includes(`"tenant":"${tenant}"`) || line.startsWith('{"type":"header"'));
      await expectCode(setup.importInto(target, moved.map((line) => (line.startsWith('{"type":"end"') ? JSON.stringify({ type: 'end', counts: { tenant: 0, key: 0, scene: 0, session: 0, cell: 0, corroboration: 0, beacon: 0, inbox: 0, diff: 0, evidence: 1 } }) : line))), 'CONFLICT');
    } finally {
      await strangerFacade.close();
    }
  });

  it.skipIf(skip)("a tenant's import weighs evidence no more than its sender's keys in the target, and refuses an agent the tenant does not have", async () => {
    const inflated = withEvidence((e) => ({ ...e, evidence_id: randomUUID(), request_id: randomUUID(), trust: 1, weight: 1, created_at: '2999-01-01T00:00:00.000000Z' }));
    const evidenceLine = inflated.find((line) => line.startsWith('{"type":"evidence"') && line.includes('"trust":1,')) as string;
    const before = new Set((await storedEvidence(source, tenant)).map((e) => e.evidence_id));
    const summary = await facade.importTenant(alice, await setup.files.write(inflated), { format: 'hyphae' });
    expect(summary.records.evidence.added).toBe(1);
    const added = (await storedEvidence(source, tenant)).find((e) => !before.has(e.evidence_id));
    // bob's key holds 0.7 and alice (the importer) 0.5: the file's 1 is not taken.
    expect(added?.trust).toBeCloseTo(0.7, 5);
    expect(added?.weight).toBeCloseTo(0.7, 5);
    const at = await source.query<{ created_at: Date }>('SELECT created_at FROM cell_evidence WHERE evidence_id = $1', [added?.evidence_id]);
    expect(at.rows[0]?.created_at.getTime()).toBeLessThanOrEqual(Date.now());
    const stranger = inflated.map((line) => (line === evidenceLine ? line.replace('"agent":"bob"', '"agent":"mallory"') : line));
    const refused = await expectCode(facade.importTenant(alice, await setup.files.write(stranger), { format: 'hyphae' }), 'FORBIDDEN');
    expect(refused.message).toContain("evidence's agent \"mallory\"");
  });
});
