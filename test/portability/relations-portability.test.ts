/**
 * Relations through export and import on PGlite and native PostgreSQL (docs/export-format.md,
 * docs/relations.md): an export holds a tenant's relations after its cells (a project's export only
 * those between two of its cells) and an import restores them; an import refuses, with nothing
 * written, a relation naming a cell that is neither in the file nor the tenant's in the target —
 * another tenant's cell reads exactly as a random id — and a tenant's import refuses a relation
 * declared by an agent the tenant does not have.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import type { Principal } from '../../src/core/principal.js';
import type { ManagedMemoryFacade } from '../../src/service/index.js';
import type { Db } from '../../src/store/db.js';
import { expectCode, freshTenant } from '../support/facade-expectations.js';
import { DATABASE_KINDS, exportLines, facadeOver, HASH, openPortability, records, type PortabilitySetup } from './portability-support.js';

describe.each(DATABASE_KINDS)('relations through export and import on $kind', { timeout: 180_000 }, ({ kind, skip }) => {
  const embedder = HASH();
  let setup: PortabilitySetup;
  let source: Db;
  let facade: ManagedMemoryFacade;
  let tenant: string;
  let writer: Principal;
  let alice: Principal;
  let ids: { question: string; answer: string; risk: string; elsewhere: string };

  beforeAll(async () => {
    if (skip) return;
    setup = await openPortability(kind, embedder, 'rel');
    ({ db: source, facade, tenant } = setup);
    const { keys } = setup;
    alice = await facade.authenticate((await keys.createKey({ tenant, agent: 'alice', roles: ['admin'] })).key);
    writer = await facade.authenticate((await keys.createKey({ tenant, agent: 'bob', projects: ['p', 'q'], default_project: 'p' })).key);
    const inQ = await facade.authenticate((await keys.createKey({ tenant, agent: 'bob', projects: ['p', 'q'], default_project: 'q' })).key);
    const store = async (content: string, extra: Record<string, unknown> = {}, by = writer): Promise<string> =>
      (await facade.store(by, { content, cell_type: 'Fact', salience: 0.5, ...extra })).node_id;
    const question = await store('Where do refunds after noon go?');
    const risk = await store('The overnight queue overflows on month ends.');
    const elsewhere = await store('Project q keeps its own refunds ledger.', {}, inQ);
    const answer = await store('Refunds after noon go to the overnight queue.', { relations: [{ to: question, type: 'answers' }] });
    await facade.addRelations(writer, answer, { relations: [{ to: risk, type: 'raises' }, { to: elsewhere, type: 'see_also' }] });
    ids = { question, answer, risk, elsewhere };
  });

  afterAll(() => setup?.close());

  const relationLines = (lines: readonly string[]): string[] => lines.filter((line) => line.startsWith('{"type":"relation"'));
  /** The lines with one more relation line before the beacons, and the end line counting it. */
  const withRelation = (lines: readonly string[], relation: Record<string, unknown>): string[] => {
    const at = lines.findIndex((line) => line.startsWith('{"type":"beacon"') || line.startsWith('{"type":"inbox"') || line.startsWith('{"type":"end"'));
    const added = [...lines.slice(0, at), JSON.stringify({ type: 'relation', tenant, relation_type: 'cites', created_by: 'bob', created_at: '2026-12-01T00:00:00.000000Z', ...relation }), ...lines.slice(at)];
    return added.map((line) => (line.startsWith('{"type":"end"') ? line.replace(/"relation":(\d+)/, (_, n: string) => `"relation":${Number(n) + 1}`) : line));
  };

  it.skipIf(skip)('exports the relations after the cells and imports them back', async () => {
    const lines = await exportLines(source, embedder, tenant, false);
    expect(relationLines(lines).map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual(
      [
        { from_node_id: ids.answer, to_node_id: ids.question, relation_type: 'answers' },
        { from_node_id: ids.answer, to_node_id: ids.risk, relation_type: 'raises' },
        { from_node_id: ids.answer, to_node_id: ids.elsewhere, relation_type: 'see_also' },
      ]
        .sort((a, b) => (a.to_node_id < b.to_node_id ? -1 : 1))
        .map((r) => expect.objectContaining({ type: 'relation', tenant, created_by: 'bob', ...r })),
    );
    const lastCell = lines.findLastIndex((line) => line.startsWith('{"type":"cell"'));
    expect(lines.findIndex((line) => line.startsWith('{"type":"relation"'))).toBeGreaterThan(lastCell);
    // A project's export holds only the relations between two of its cells.
    expect(relationLines(await exportLines(source, embedder, tenant, false, 'p')).map((line) => (JSON.parse(line) as { relation_type: string }).relation_type).sort()).toEqual(['answers', 'raises']);

    const target = await setup.databases.open(embedder);
    const summary = await setup.importInto(target, lines);
    expect(summary.records.relation).toEqual({ in_file: 3, added: 3 });
    const restored = facadeOver(target, embedder);
    try {
      const key = (await createKeyAdministration(target).createKey({ tenant, agent: 'carol', projects: ['p', 'q'], default_project: 'p' })).key;
      const reader = await restored.authenticate(key);
      expect(await restored.cellRelations(reader, ids.answer)).toEqual(await facade.cellRelations(writer, ids.answer));
      expect((await restored.cellSubgraph(reader, ids.question, { depth: 2 })).members.map((m) => m.id)).toEqual(expect.arrayContaining([ids.answer, ids.risk, ids.elsewhere]));
      // Importing the same file again adds nothing.
      expect((await setup.importInto(target, lines)).records.relation).toEqual({ in_file: 3, added: 0 });
    } finally {
      await restored.close();
    }
  });

  it.skipIf(skip)('refuses a relation to a cell neither in the file nor the tenant’s in the target; another tenant’s cell reads as a random id', async () => {
    const lines = await exportLines(source, embedder, tenant, false);
    const target = await setup.databases.open(embedder);
    const other = facadeOver(target, embedder);
    try {
      const stranger = await other.authenticate((await createKeyAdministration(target).createKey({ tenant: freshTenant('other'), agent: 'x' })).key);
      const theirs = (await other.store(stranger, { content: 'A cell of another tenant.', cell_type: 'Fact', salience: 0.5 })).node_id;
      const random = randomUUID();
      const message = async (to: string): Promise<string> =>
        (await expectCode(setup.importInto(target, withRelation(lines, { from_node_id: ids.answer, to_node_id: to })), 'CONFLICT')).message.replace(to, '<id>');
      const refusedRandom = await message(random);
      expect(refusedRandom).toMatch(/relation [0-9a-f-]+ cites <id> names a cell that is neither in the file nor tenant "[^"]+"'s in the target; nothing was imported/);
      expect((await message(theirs)).replace(/^[^:]+:/, '')).toBe(refusedRandom.replace(/^[^:]+:/, ''));
      // Nothing of the refused files was written.
      expect(records(await exportLines(target, embedder, tenant, false))).toEqual([expect.stringMatching(/^\{"type":"end"/)]);
    } finally {
      await other.close();
    }
  });

  it.skipIf(skip)('a tenant’s import refuses a relation declared by an agent the tenant does not have', async () => {
    const lines = withRelation(await exportLines(source, embedder, tenant, false), { from_node_id: ids.risk, to_node_id: ids.question, created_by: 'mallory' });
    const refused = await expectCode(facade.importTenant(alice, await setup.files.write(lines), { format: 'hyphae' }), 'FORBIDDEN');
    expect(refused.message).toContain('the relation\'s created_by "mallory" is not an agent of tenant');
  });
});
