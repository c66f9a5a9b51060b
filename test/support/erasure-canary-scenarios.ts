/**
 * The canary scenarios of erasure (docs/forgetting.md), run on PGlite and on native PostgreSQL: a
 * unique string is stored through every path that copies text — a cell gossiped to three inboxes,
 * a restatement, a superseded version, a source with chunks, a relation, a beacon, a scene title,
 * an idempotency key, the evidence a judged query left, a recall whose query holds it, feedback with a ground truth — then erased by one selector, and every text, varchar, json, jsonb and array
 * column of every table the catalog lists is scanned, and a dump of the database searched: zero
 * occurrences. The receipt's count of each kind of copy equals the rows the scan saw before.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { ErasureReceipt } from '../../src/core/erasure-schemas.js';
import type { Principal } from '../../src/core/principal.js';
import type { Queryable } from '../../src/store/db.js';
import { createEvidenceLearner } from '../../src/service/feedback/evidence-learner.js';
import { freshTenant } from './facade-expectations.js';
import type { ScenarioHarness } from './scenario-harness.js';

/** A string no other test writes: letters then hex, so it is one lexical term, an identifier and a relation type alike. */
export function canary(): string {
  return `zq${randomBytes(6).toString('hex')}`;
}

/** Per table of the schema (from the catalog), the rows whose text-like columns hold `needle` anywhere. */
export async function scanForCanary(db: Queryable, needle: string): Promise<Record<string, number>> {
  const columns = await db.query<{ table_name: string; column_name: string }>(
    `SELECT c.relname AS table_name, a.attname AS column_name FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
     WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
       AND a.atttypid IN ('text'::regtype, 'varchar'::regtype, 'bpchar'::regtype, 'json'::regtype, 'jsonb'::regtype, 'text[]'::regtype, 'varchar[]'::regtype)
     ORDER BY 1, 2`,
  );
  const byTable = new Map<string, string[]>();
  for (const { table_name, column_name } of columns.rows) byTable.set(table_name, [...(byTable.get(table_name) ?? []), column_name]);
  expect(byTable.has('cells') && byTable.has('diffs')).toBe(true);
  const seen: Record<string, number> = {};
  for (const [table, names] of byTable) {
    const where = names.map((name) => `strpos("${name}"::text, $1) > 0`).join(' OR ');
    const n = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${table}" WHERE ${where}`, [needle])).rows[0]?.n ?? 0;
    if (n > 0) seen[table] = n;
  }
  return seen;
}

/** Every row of every table of the schema as text, the way COPY writes it (the dump where no pg_dump runs). */
export async function rowDump(db: Queryable): Promise<string> {
  const tables = await db.query<{ name: string }>(`SELECT relname AS name FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p') ORDER BY 1`);
  const parts: string[] = [];
  for (const { name } of tables.rows) for (const row of (await db.query<{ r: string }>(`SELECT t::text AS r FROM "${name}" t`)).rows) parts.push(row.r);
  return parts.join('\n');
}

/** The tables whose rows carry erased text, and the receipt kinds that count them. */
const KINDS_OF_TABLE: Readonly<Record<string, readonly string[]>> = {
  cells: ['cells', 'versions', 'chunks', 'copies'],
  cell_tenant_terms: ['lexical_terms'],
  corroborations: ['restatements'],
  reinforcement_keys: ['reinforcement_keys'],
  cell_relations: ['relations'],
  sources: ['sources'],
  source_ingestions: ['source_ingestions'],
  beacons: ['beacons'],
  cell_evidence: ['learnt_evidence'],
  recall_requests: ['recall_log'],
  recall_feedback: ['feedback'],
};

/** Each table the scan saw is counted by the receipt's kinds, exactly; diffs as tombstoned previews or deleted rows. */
export function expectReceiptMatchesScan(receipt: ErasureReceipt, before: Record<string, number>): void {
  const sum = (kinds: readonly string[]): number => kinds.reduce((total, kind) => total + (receipt.counts[kind] ?? 0), 0);
  for (const [table, kinds] of Object.entries(KINDS_OF_TABLE)) expect({ table, n: sum(kinds) }).toEqual({ table, n: before[table] ?? 0 });
  expect({ table: 'diffs', n: sum(['diff_previews', 'diffs']) }).toEqual({ table: 'diffs', n: before.diffs ?? 0 });
  if (before.scenes !== undefined) expect(sum(['scene_titles', 'scenes'])).toBeGreaterThanOrEqual(before.scenes);
}

export interface CanaryOptions {
  /** The database as a dump tool writes it (pg_dump on native PostgreSQL, rowDump elsewhere). */
  readonly dump: () => Promise<string>;
}

interface Cast {
  readonly tenant: string;
  readonly author: Principal;
  readonly other: Principal;
  readonly admin: Principal;
  readonly watchers: readonly Principal[];
}

export function erasureCanaryScenarios(harness: () => ScenarioHarness, options: CanaryOptions): void {
  const cast = async (tenant = freshTenant()): Promise<Cast> => {
    const h = harness();
    const watchers = [];
    for (const agent of ['w1', 'w2', 'w3']) {
      const watcher = await h.principal({ tenant, agent, roles: ['reader'] });
      await h.facade.placeBeacon(watcher, { text: 'ledger settlement rule', threshold: 0.2, include_own: false });
      watchers.push(watcher);
    }
    return {
      tenant,
      author: await h.principal({ tenant, agent: 'author' }),
      other: await h.principal({ tenant, agent: 'other' }),
      admin: await h.principal({ tenant, agent: 'ops', roles: ['admin'] }),
      watchers,
    };
  };

  /** A cell gossiped to the three watchers, restated by another agent (with a replay key), related to a second cell by a relation of the canary's type. */
  const gossipedCell = async (c: Cast, k: string): Promise<string> => {
    const { facade } = harness();
    const content = `${k} ledger settlement rule keeps every account balanced`;
    const cell = await facade.store(c.author, { content, cell_type: 'Decision', salience: 1, metadata: { tag: k } });
    const restated = await facade.store(c.other, { content, cell_type: 'Decision', salience: 1, idempotency_key: `${k}-again`, metadata: { note: k } });
    expect(restated).toMatchObject({ node_id: cell.node_id, reinforced: true });
    const target = await facade.store(c.other, { content: 'ledger settlement rule audit happens monthly', cell_type: 'Fact', salience: 0.5 });
    await facade.addRelations(c.author, cell.node_id, { relations: [{ to: target.node_id, type: k }] });
    for (const watcher of c.watchers) expect((await facade.peekInbox(watcher, { limit: 50 })).diffs.some((d) => d.preview.includes(k))).toBe(true);
    return cell.node_id;
  };

  /** What recall learns from a judged query naming `nodeId` true: evidence keeping the query's text (issue 46). */
  const judgedQuery = async (tenantId: string, agent: string, nodeId: string, k: string): Promise<void> => {
    const { db } = harness();
    const dimension = Number((await db.query<{ value: string }>(`SELECT value FROM hyphae_meta WHERE key = 'embedding_dimension'`)).rows[0]?.value);
    const learner = createEvidenceLearner({ db, clock: () => new Date(), embeddingModel: 'canary', enabled: true });
    await learner.learn({
      tenantId,
      project: 'default',
      feedbackId: randomUUID(),
      requestId: randomUUID(),
      queryEmbedding: Array.from({ length: dimension }, (_, i) => (i === 0 ? 1 : 0)),
      embeddingModel: 'canary',
      queryText: `what does ${k} say about ledgers`,
      truthCellIds: [nodeId],
      agentId: agent,
      label: 'agent',
      senderTrust: 0.5,
    });
  };

  const source = async (who: Principal, k: string, sourceId: string, project?: string): Promise<void> => {
    const text = Array.from({ length: 6 }, (_, i) => `## Part ${i}\n\nThe ${k} ledger settlement rule, part ${i}, keeps accounts balanced.`).join('\n\n');
    await harness().facade.ingestSource(who, { text, format: 'markdown', title: `${k} handbook`, source_id: sourceId, overwrite: true, ...(project === undefined ? {} : { project }) });
  };

  const erasedEverywhere = async (k: string, receipt: ErasureReceipt, before: Record<string, number>): Promise<void> => {
    const { db } = harness();
    expect(await scanForCanary(db, k)).toEqual({});
    expect((await options.dump()).includes(k)).toBe(false);
    expectReceiptMatchesScan(receipt, before);
    // The audit log names the selector and counts, never the text.
    expect(JSON.stringify(receipt)).not.toContain(k);
  };

  it('a cell: its restatement, relation, terms, replay key and the previews in three inboxes go; the diffs stay as tombstones', async () => {
    const { facade, db } = harness();
    const c = await cast();
    const k = canary();
    const nodeId = await gossipedCell(c, k);
    await judgedQuery(c.tenant, 'w1', nodeId, k);
    const watcher = c.watchers[1] ?? c.author;
    const recalled = await facade.recall(watcher, { query: `${k} ledger settlement`, k: 3 });
    expect(recalled.results.map((r) => r.node_id)).toContain(nodeId);
    await facade.submitFeedback(watcher, { request_id: recalled.request_id, rating: 'positive', ground_truth_answer: `${k} keeps accounts balanced`, ground_truth_ids: [nodeId] });
    const before = await scanForCanary(db, k);
    expect(Object.keys(before).sort()).toEqual(['cell_evidence', 'cell_relations', 'cell_tenant_terms', 'cells', 'corroborations', 'diffs', 'recall_feedback', 'recall_requests', 'reinforcement_keys']);
    // The dump is live: before the erasure it holds the canary.
    expect((await options.dump()).includes(k)).toBe(true);
    const receipt = await facade.deleteCell(c.author, nodeId);
    await erasedEverywhere(k, receipt, before);
    for (const watcher of c.watchers) {
      const diffs = (await facade.peekInbox(watcher, { limit: 50 })).diffs.filter((d) => d.node_id === nodeId);
      // Every diff about it is a tombstone now (created, and updated when the restatement was told), then one deleted.
      expect(diffs.map((d) => d.preview).every((preview) => preview === '')).toBe(true);
      expect(diffs.map((d) => d.op).filter((op) => op === 'deleted')).toEqual(['deleted']);
      expect(diffs.at(-1)?.op).toBe('deleted');
    }
  });

  it('a supersession chain with include_history: every version goes; without it the older version stays', async () => {
    const { facade, db } = harness();
    const c = await cast();
    const k = canary();
    const first = await facade.store(c.author, { content: `${k} ledger settlement rule v1`, cell_type: 'Decision', salience: 1 });
    const second = await facade.store(c.author, { content: `${k} ledger settlement rule v2`, cell_type: 'Decision', salience: 1, supersedes: first.node_id });
    const kept = canary();
    const old = await facade.store(c.author, { content: `${kept} ledger settlement rule old`, cell_type: 'Decision', salience: 1 });
    const current = await facade.store(c.author, { content: 'ledger settlement rule new', cell_type: 'Decision', salience: 1, supersedes: old.node_id });
    const before = await scanForCanary(db, k);
    expect(before.cells).toBe(2);
    await erasedEverywhere(k, await facade.deleteCell(c.author, second.node_id, { include_history: true }), before);
    await facade.deleteCell(c.author, current.node_id);
    expect((await scanForCanary(db, kept)).cells).toBe(1);
  });

  it('a source: its text, title, chunks and their terms, and the document diff previews go', async () => {
    const { facade, db } = harness();
    const c = await cast();
    const k = canary();
    await source(c.author, k, `doc-${k.slice(2, 6)}`);
    const before = await scanForCanary(db, k);
    expect(before.sources).toBe(1);
    expect(before.cells).toBeGreaterThan(1);
    await erasedEverywhere(k, await facade.deleteSource(c.author, { source_id: `doc-${k.slice(2, 6)}` }), before);
  });

  it('an agent: its cells, restatements of others, relations, beacons, sources and scene titles go; nothing of another agent does', async () => {
    const { facade, db } = harness();
    const c = await cast();
    const k = canary();
    const survivor = canary();
    const said = `${survivor} ledger settlement rule of another agent`;
    const theirs = await facade.store(c.other, { content: said, cell_type: 'Fact', salience: 1 });
    await facade.openSession(c.author, { project: 'default', title: `${k} session` });
    const mine = await facade.store(c.author, { content: `${k} ledger settlement rule by the author`, cell_type: 'Decision', salience: 1 });
    await facade.addRelations(c.author, mine.node_id, { relations: [{ to: theirs.node_id, type: k }] });
    expect(await facade.store(c.author, { content: said, cell_type: 'Fact', salience: 1, idempotency_key: `${k}-again`, metadata: { said: k } })).toMatchObject({ reinforced: true });
    await facade.placeBeacon(c.author, { text: `${k} ledger watch`, threshold: 0.9, include_own: false });
    await source(c.author, k, 'agent-doc');
    await judgedQuery(c.tenant, 'author', theirs.node_id, k);
    const asked = await facade.recall(c.author, { query: `${k} what did the others say`, k: 3 });
    await facade.submitFeedback(c.author, { request_id: asked.request_id, feedback: `${k} was not what I meant`, rating: 'negative' });
    const before = await scanForCanary(db, k);
    expect(Object.keys(before).sort()).toEqual(['beacons', 'cell_evidence', 'cell_relations', 'cell_tenant_terms', 'cells', 'corroborations', 'diffs', 'recall_feedback', 'recall_requests', 'reinforcement_keys', 'scenes', 'sources']);
    const receipt = await facade.eraseAgentMemories(c.admin, { agent: 'author' });
    await erasedEverywhere(k, receipt, before);
    expect((await facade.getCell(c.other, theirs.node_id)).content).toBe(said);
  });

  it('a project: its cells, scenes, sources and the diffs about it go; the project of the same name elsewhere stays', async () => {
    const { facade, db } = harness();
    const c = await cast();
    const elsewhere = await cast();
    const k = canary();
    const author = await harness().principal({ tenant: c.tenant, agent: 'doomed-writer', default_project: 'doomed' });
    await facade.openSession(author, { project: 'doomed', title: `${k} doomed scene` });
    await facade.store(author, { content: `${k} ledger settlement rule in doomed`, cell_type: 'Decision', salience: 1 });
    await source(author, k, 'doomed-doc', 'doomed');
    const keptAuthor = await harness().principal({ tenant: elsewhere.tenant, agent: 'doomed-writer', default_project: 'doomed' });
    const kept = canary();
    await facade.store(keptAuthor, { content: `${kept} ledger settlement rule in doomed`, cell_type: 'Decision', salience: 1 });
    const before = await scanForCanary(db, k);
    await facade.purgeProject(c.admin, { project: 'doomed' });
    const [receipt] = (await facade.listErasureReceipts(c.admin, { limit: 1 })).receipts;
    expect(receipt?.selector).toEqual({ kind: 'project', project: 'doomed' });
    if (receipt !== undefined) await erasedEverywhere(k, receipt, before);
    expect((await scanForCanary(db, kept)).cells).toBe(1);
  });

  it('a tenant: everything goes, its keys are revoked, its own receipt stays and is the only one', async () => {
    const { facade, db } = harness();
    const c = await cast();
    const k = canary();
    await gossipedCell(c, k);
    await source(c.author, k, 'tenant-doc');
    await facade.openSession(c.author, { project: 'default', title: `${k} scene` });
    await facade.deleteCell(c.author, (await facade.store(c.author, { content: `${k} short lived`, cell_type: 'Fact', salience: 0.5 })).node_id);
    const cellsBefore = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM cells WHERE tenant_id = $1', [c.tenant])).rows[0]?.n;
    const asked = await facade.eraseTenant(c.admin, {});
    if (!('confirmation_token' in asked)) throw new Error('the first call must answer a token');
    const receipt = await facade.eraseTenant(c.admin, { confirmation: asked.confirmation_token });
    if ('confirmation_token' in receipt) throw new Error('the second call must erase');
    expect(await scanForCanary(db, k)).toEqual({});
    expect((await options.dump()).includes(k)).toBe(false);
    const sum = (kinds: readonly string[]): number => kinds.reduce((total, kind) => total + (receipt.counts[kind] ?? 0), 0);
    // Every cell of the tenant, the ones without the canary too.
    expect(sum(['cells', 'versions', 'chunks', 'copies'])).toBe(cellsBefore);
    // w1, w2, w3, author, other and the admin itself.
    expect(receipt.counts.keys_revoked).toBe(6);
    expect(receipt.counts.receipts).toBe(1);
    const left = await db.query<{ selector: { kind: string } }>('SELECT selector FROM erasure_receipts WHERE tenant_id = $1', [c.tenant]);
    expect(left.rows.map((row) => row.selector.kind)).toEqual(['tenant']);
  });
}
