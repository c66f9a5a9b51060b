/**
 * Restatement through the facade with the real minilm embedder (docs/memory-model.md):
 * a store that rewords a current cell of the same tenant, project and type writes no cell and
 * gossips nothing; it reinforces that cell (reinforcement time, corroborations, stated_by, trust)
 * and answers with it. A different statement, a changed value, another tenant, project or type,
 * a superseded cell, an idempotent replay and the off switch all keep their own meaning.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Diff } from '../../src/core/entities.js';
import type { Principal } from '../../src/core/principal.js';
import { restatementContrast } from '../../src/service/cells/restatement-contrast.js';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { freshTenant } from '../support/facade-expectations.js';

const EPOCH = '2000-01-01T00:00:00Z';
const DAY = 86_400_000;
const STATEMENT = 'User sessions are stored in PostgreSQL.';
const REWORDING = 'We keep user sessions in PostgreSQL.';
const DIFFERENT = 'User sessions used to be stored in Redis.';
const CHANGED_VALUE = ['The Android build requires JDK 17.', 'The Android build requires JDK 21.'] as const;
/** Pairs minilm scores above 0.85 that say the same of different subjects: another name, another identifier, one swapped word. */
const SUBJECT_PAIRS: readonly (readonly [string, string])[] = [
  ['Harbor chose Envoy over Nginx for the GraphQL gateway because it supports gRPC-Web natively.', 'Falcon chose Envoy over Nginx for the GraphQL gateway because it supports gRPC-Web natively.'],
  ['Sofia found that the flaky checkout test failed only when run after the coupon tests.', 'Ahmed found that the flaky checkout test failed only when run after the coupon tests.'],
  ['The payments team moved its queues from RabbitMQ to Kafka to replay settlement events.', 'The logistics team moved its queues from RabbitMQ to Kafka to replay settlement events.'],
  ['The flag checkout_v2_enabled routes half of the carts to the new checkout page.', 'The flag checkout_v2_preview routes half of the carts to the new checkout page.'],
];
/** Pairs minilm scores above 0.85 that make two different claims about one long subject: neither a name nor one swapped run tells them apart. */
const PREDICATE_PAIRS: readonly (readonly [string, string])[] = [
  ['The single sign-on integration between the employee directory and the internal wiki breaks after password changes.', 'The single sign-on integration between the employee directory and the internal wiki is maintained by the security team.'],
  ['The rate limiter in front of the public API blocks partners behind shared NAT gateways.', 'The rate limiter in front of the public API counts requests per API key behind shared NAT gateways.'],
];

function cosine(a: Float32Array, b: Float32Array): number {
  return a.reduce((sum, x, i) => sum + x * (b[i] ?? 0), 0);
}

describe.each(TEST_DRIVERS)('restatement on %s (minilm)', (driver) => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await createTestRuntime({ driver, embedder: 'minilm' });
  });
  afterAll(async () => rt.close());

  const team = async (): Promise<{ tenant: string; author: Principal; peer: Principal; watcher: Principal }> => {
    const tenant = freshTenant();
    return {
      tenant,
      author: await rt.principal({ tenant, agent: 'author', default_project: 'p', trust: 0.5 }),
      peer: await rt.principal({ tenant, agent: 'peer', default_project: 'p', trust: 0.6 }),
      watcher: await rt.principal({ tenant, agent: 'watcher', default_project: 'p' }),
    };
  };
  const cellsOf = async (p: Principal): Promise<string[]> => (await rt.facade.listCells(p, { limit: 50 })).items.map((c) => c.node_id);
  const diffsOf = async (p: Principal): Promise<readonly Diff[]> => (await rt.facade.pullDiffs(p, { since: EPOCH, limit: 500 })).diffs;

  it('uses the per-embedder default similarity', () => {
    expect(rt.facade.config.restatementSimilarity).toBe(0.85);
  });

  it("reinforces the cell a rewording restates: no new cell, its energy renewed, the peer's corroboration counted and its trust raised", async () => {
    const { author, peer } = await team();
    const original = await rt.facade.store(author, { content: STATEMENT, cell_type: 'Decision', salience: 0.5 });
    expect(original).toMatchObject({ reinforced: false, corroborations: 0, stated_by: ['author'], trust: 0.5 });
    rt.clock.advance(30 * DAY);
    const decayed = await rt.facade.getCell(author, original.node_id);

    const restated = await rt.facade.store(peer, { content: REWORDING, cell_type: 'Decision', salience: 0.5 });
    expect(restated).toMatchObject({ node_id: original.node_id, reinforced: true, content: STATEMENT, corroborations: 1, stated_by: ['author', 'peer'] });
    // Noisy-or, 1 − (1 − 0.5)(1 − 0.6), read back as written (real, shortest form).
    expect(restated.trust).toBe(0.8);
    expect(restated.energy).toBeGreaterThan(decayed.energy);
    expect(restated.energy).toBeCloseTo(original.energy, 5);
    expect(Date.parse(restated.updated_at)).toBeGreaterThan(Date.parse(original.updated_at));
    expect(await cellsOf(author)).toEqual([original.node_id]);

    // The author restating its own cell is one more corroboration, not a new agent: trust stays.
    const again = await rt.facade.store(author, { content: REWORDING, cell_type: 'Decision', salience: 0.5 });
    expect(again).toMatchObject({ node_id: original.node_id, reinforced: true, corroborations: 2, stated_by: ['author', 'peer'] });
    expect(again.trust).toBe(0.8);
  });

  it('writes a cell of its own for a different statement on the same subject, and for a changed value', async () => {
    const { author } = await team();
    const first = await rt.facade.store(author, { content: STATEMENT, cell_type: 'Decision', salience: 0.5 });
    const other = await rt.facade.store(author, { content: DIFFERENT, cell_type: 'Decision', salience: 0.5 });
    expect(other.reinforced).toBe(false);
    expect(other.node_id).not.toBe(first.node_id);
    const jdk17 = await rt.facade.store(author, { content: CHANGED_VALUE[0], cell_type: 'Constraint', salience: 0.5 });
    const jdk21 = await rt.facade.store(author, { content: CHANGED_VALUE[1], cell_type: 'Constraint', salience: 0.5 });
    expect(jdk21.reinforced).toBe(false);
    expect(new Set(await cellsOf(author))).toEqual(new Set([first.node_id, other.node_id, jdk17.node_id, jdk21.node_id]));
    expect((await rt.facade.getCell(author, first.node_id)).corroborations).toBe(0);
  });

  it("keeps what a reinforcing store said and carried as a corroboration record, read in the cell's history", async () => {
    const { author, peer } = await team();
    const original = await rt.facade.store(author, { content: STATEMENT, cell_type: 'Decision', salience: 0.5 });
    const session = await rt.facade.openSession(peer, { project: 'p', title: 'standup' });
    const restated = await rt.facade.store(peer, {
      content: REWORDING,
      cell_type: 'Decision',
      salience: 0.9,
      metadata: { heard_in: 'standup' },
      source_ref: { kind: 'file', locator: 'notes/standup.md' },
    });
    expect(restated).toMatchObject({ node_id: original.node_id, reinforced: true, content: STATEMENT });
    const history = await rt.facade.cellHistory(author, original.node_id);
    expect(history.cells.map((c) => c.node_id)).toEqual([original.node_id]);
    expect(history.corroborations).toHaveLength(1);
    const [record] = history.corroborations;
    expect(record).toMatchObject({
      node_id: original.node_id,
      agent: 'peer',
      content: REWORDING,
      salience: 0.9,
      scene_id: session.scene_id,
      metadata: { heard_in: 'standup' },
      source_ref: { kind: 'file', locator: 'notes/standup.md' },
    });
    expect(record?.similarity).toBeGreaterThanOrEqual(0.85);
    expect(record?.similarity).toBeLessThan(1);
  });

  it.each(SUBJECT_PAIRS)('never folds a statement about another subject into a cell, however close: %s', async (first, second) => {
    // The pair is as close as a rewording and the number/negation guard alone would fold it: only the subject guard keeps it apart.
    const [a, b] = await rt.embedder.embed([first, second]);
    expect(cosine(a as Float32Array, b as Float32Array)).toBeGreaterThanOrEqual(0.85);
    expect(['number', 'negation']).not.toContain(restatementContrast(first, second));
    const { author, peer } = await team();
    const kept = await rt.facade.store(author, { content: first, cell_type: 'Decision', salience: 0.5 });
    const other = await rt.facade.store(peer, { content: second, cell_type: 'Decision', salience: 0.5 });
    expect(other).toMatchObject({ reinforced: false, content: second, corroborations: 0 });
    expect(other.node_id).not.toBe(kept.node_id);
    expect((await rt.facade.getCell(author, kept.node_id)).corroborations).toBe(0);
    expect((await rt.facade.cellHistory(author, kept.node_id)).corroborations).toEqual([]);
    expect((await cellsOf(author)).sort()).toEqual([kept.node_id, other.node_id].sort());
  });

  it.each(PREDICATE_PAIRS)('never folds another claim about the same subject into a cell, however close: %s', async (first, second) => {
    // As close as a rewording, with the same subject: only the predicate guard keeps the two claims apart.
    const [a, b] = await rt.embedder.embed([first, second]);
    expect(cosine(a as Float32Array, b as Float32Array)).toBeGreaterThanOrEqual(0.85);
    expect(restatementContrast(first, second)).toBe('predicate');
    const { author } = await team();
    const kept = await rt.facade.store(author, { content: first, cell_type: 'Risk', salience: 0.5 });
    const other = await rt.facade.store(author, { content: second, cell_type: 'Risk', salience: 0.5 });
    expect(other).toMatchObject({ reinforced: false, content: second, corroborations: 0 });
    expect((await rt.facade.getCell(author, kept.node_id)).corroborations).toBe(0);
    expect((await cellsOf(author)).sort()).toEqual([kept.node_id, other.node_id].sort());
  });

  it('gossips nothing for a reinforcement', async () => {
    const { author, peer, watcher } = await team();
    await rt.facade.placeBeacon(watcher, { text: 'where user sessions are stored', threshold: 0.3, include_own: false });
    const original = await rt.facade.store(author, { content: STATEMENT, cell_type: 'Decision', salience: 0.8 });
    expect((await diffsOf(watcher)).map((d) => [d.op, d.node_id])).toEqual([['created', original.node_id]]);
    await rt.facade.store(peer, { content: REWORDING, cell_type: 'Decision', salience: 0.8 });
    expect((await diffsOf(watcher)).map((d) => [d.op, d.node_id])).toEqual([['created', original.node_id]]);
  });

  it('never reinforces across tenants, projects or cell types', async () => {
    const { author } = await team();
    const original = await rt.facade.store(author, { content: STATEMENT, cell_type: 'Decision', salience: 0.5 });
    const foreigner = await rt.principal({ tenant: freshTenant(), agent: 'author', default_project: 'p' });
    const foreign = await rt.facade.store(foreigner, { content: STATEMENT, cell_type: 'Decision', salience: 0.5 });
    expect(foreign).toMatchObject({ reinforced: false, corroborations: 0 });
    expect(foreign.node_id).not.toBe(original.node_id);
    expect(await cellsOf(foreigner)).toEqual([foreign.node_id]);

    await rt.facade.openSession(author, { project: 'q' });
    const otherProject = await rt.facade.store(author, { content: REWORDING, cell_type: 'Decision', salience: 0.5 });
    expect(otherProject).toMatchObject({ reinforced: false, project: 'q' });
    const otherType = await rt.facade.store(foreigner, { content: REWORDING, cell_type: 'Fact', salience: 0.5 });
    expect(otherType.reinforced).toBe(false);
    expect((await rt.facade.getCell(author, original.node_id)).corroborations).toBe(0);
    expect((await rt.facade.getCell(foreigner, foreign.node_id)).corroborations).toBe(0);
  });

  it('does not reinforce a superseded cell', async () => {
    const { author } = await team();
    const old = await rt.facade.store(author, { content: STATEMENT, cell_type: 'Decision', salience: 0.5 });
    const next = await rt.facade.store(author, { content: 'Logins moved to a managed identity provider.', cell_type: 'Decision', salience: 0.5, supersedes: old.node_id });
    expect(next.reinforced).toBe(false);
    const restated = await rt.facade.store(author, { content: REWORDING, cell_type: 'Decision', salience: 0.5 });
    expect(restated.reinforced).toBe(false);
    expect([old.node_id, next.node_id]).not.toContain(restated.node_id);
    expect((await rt.facade.getCell(author, old.node_id)).corroborations).toBe(0);
  });

  it('keeps exact replay for idempotency keys: a replay returns the original and reinforces nothing', async () => {
    const { author, peer } = await team();
    const original = await rt.facade.store(author, { content: STATEMENT, cell_type: 'Decision', salience: 0.5, idempotency_key: 'k1' });
    const replay = await rt.facade.store(author, { content: STATEMENT, cell_type: 'Decision', salience: 0.5, idempotency_key: 'k1' });
    expect(replay).toMatchObject({ node_id: original.node_id, reinforced: false, corroborations: 0 });

    // A keyed store that reinforced: its replay answers the same cell and counts nothing twice.
    const restated = await rt.facade.store(peer, { content: REWORDING, cell_type: 'Decision', salience: 0.5, idempotency_key: 'k2' });
    expect(restated).toMatchObject({ node_id: original.node_id, reinforced: true, corroborations: 1 });
    const restatedReplay = await rt.facade.store(peer, { content: REWORDING, cell_type: 'Decision', salience: 0.5, idempotency_key: 'k2' });
    expect(restatedReplay).toMatchObject({ node_id: original.node_id, reinforced: false, corroborations: 1, stated_by: ['author', 'peer'] });
    expect(await cellsOf(author)).toEqual([original.node_id]);
  });
});

describe('restatement with the similarity switched off', () => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await createTestRuntime({ embedder: 'minilm', facade: { restatementSimilarity: null } });
  });
  afterAll(async () => rt.close());

  it('writes every rewording as a cell of its own; an identical statement still reinforces', async () => {
    const author = await rt.principal({ tenant: freshTenant(), agent: 'author', default_project: 'p' });
    const first = await rt.facade.store(author, { content: STATEMENT, cell_type: 'Decision', salience: 0.5 });
    const reworded = await rt.facade.store(author, { content: REWORDING, cell_type: 'Decision', salience: 0.5 });
    expect(reworded.reinforced).toBe(false);
    expect(reworded.node_id).not.toBe(first.node_id);
    const repeated = await rt.facade.store(author, { content: STATEMENT, cell_type: 'Decision', salience: 0.5 });
    expect(repeated).toMatchObject({ node_id: first.node_id, reinforced: true, corroborations: 1 });
    expect((await rt.facade.listCells(author, { limit: 50 })).items).toHaveLength(2);
  });
});

describe.each(TEST_DRIVERS)('identical restatements on %s (hash, no similarity)', (driver) => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await createTestRuntime({ driver, embedder: 'hash' });
  });
  afterAll(async () => rt.close());

  it('reinforces a cell with the same text once case, spacing and closing punctuation are set aside, and keeps the restatement in its history', async () => {
    expect(rt.facade.config.restatementSimilarity).toBeNull();
    const tenant = freshTenant();
    const author = await rt.principal({ tenant, agent: 'author', default_project: 'p' });
    const peer = await rt.principal({ tenant, agent: 'peer', default_project: 'p' });
    const original = await rt.facade.store(author, { content: STATEMENT, cell_type: 'Decision', salience: 0.5 });
    const again = await rt.facade.store(peer, { content: '  user sessions are  STORED in postgresql ', cell_type: 'Decision', salience: 0.5 });
    expect(again).toMatchObject({ node_id: original.node_id, reinforced: true, corroborations: 1, stated_by: ['author', 'peer'] });
    expect((await rt.facade.cellHistory(author, original.node_id)).corroborations).toMatchObject([
      { agent: 'peer', content: '  user sessions are  STORED in postgresql ', similarity: 1 },
    ]);
    // A rewording is no identical statement; another type or project is another cell.
    expect((await rt.facade.store(peer, { content: REWORDING, cell_type: 'Decision', salience: 0.5 })).reinforced).toBe(false);
    expect((await rt.facade.store(peer, { content: STATEMENT, cell_type: 'Fact', salience: 0.5 })).reinforced).toBe(false);
    await rt.facade.openSession(peer, { project: 'q' });
    expect((await rt.facade.store(peer, { content: STATEMENT, cell_type: 'Decision', salience: 0.5 })).reinforced).toBe(false);
  });
});
