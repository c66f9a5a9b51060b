import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/principal.js';
import type { StoreInput } from '../../src/core/schemas.js';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { expectCode, expectInvalidField, freshTenant, MISSING_ID } from '../support/facade-expectations.js';

const asStore = (value: Record<string, unknown>): StoreInput => value as unknown as StoreInput;

describe.each(TEST_DRIVERS)('cells on %s', (driver) => {
  let rt: TestRuntime;
  let writer: Principal;
  let tenant: string;

  beforeAll(async () => {
    rt = await createTestRuntime({ driver });
    tenant = freshTenant();
    writer = await rt.principal({ tenant, agent: 'alice' });
  });
  afterAll(async () => rt.close());

  const countCells = async (t: string): Promise<number> => {
    const { rows } = await rt.db.query<{ n: number }>('SELECT count(*)::int AS n FROM cells WHERE tenant_id = $1', [t]);
    return rows[0]?.n ?? 0;
  };

  it('stores a cell with the principal as author, the key default project, defaults applied, and reads it back', async () => {
    const node = await rt.facade.store(writer, asStore({ content: 'Use pgvector HNSW for recall', cell_type: 'Decision', source_ref: { kind: 'file', locator: 'docs/x.md:3' } }));
    expect(node).toMatchObject({ source_agent: 'alice', project: 'default', salience: 0.5, layer: 'L0', hits: 0, metadata: {}, scene_id: null, session_id: null });
    expect(node.source_ref).toEqual({ kind: 'file', locator: 'docs/x.md:3' });
    expect(node.energy).toBeGreaterThan(0);
    expect(node).toMatchObject({ reinforced: false, corroborations: 0, stated_by: ['alice'], trust: 0.5 });
    const { reinforced: _, ...stored } = node;
    expect(await rt.facade.getCell(writer, node.node_id)).toEqual({ ...stored, energy: expect.any(Number) as number });
  });

  it('replays an idempotency key: same node, nothing stored, even with different content', async () => {
    const t = freshTenant();
    const p = await rt.principal({ tenant: t, agent: 'a' });
    const first = await rt.facade.store(p, asStore({ content: 'first', cell_type: 'Fact', idempotency_key: 'k-1' }));
    const again = await rt.facade.store(p, asStore({ content: 'second', cell_type: 'Task', idempotency_key: 'k-1' }));
    expect(again.node_id).toBe(first.node_id);
    expect(again.content).toBe('first');
    expect(await countCells(t)).toBe(1);
  });

  it('concurrent replays of one idempotency key store exactly one cell', async () => {
    const t = freshTenant();
    const p = await rt.principal({ tenant: t, agent: 'a' });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => rt.facade.store(p, asStore({ content: `race ${i}`, cell_type: 'Fact', idempotency_key: 'race' }))),
    );
    expect(new Set(results.map((r) => r.node_id)).size).toBe(1);
    expect(await countCells(t)).toBe(1);
  });

  it('scopes idempotency keys by agent: another agent with the same key stores its own cell', async () => {
    const t = freshTenant();
    const a = await rt.principal({ tenant: t, agent: 'a' });
    const b = await rt.principal({ tenant: t, agent: 'b' });
    const first = await rt.facade.store(a, asStore({ content: 'x', cell_type: 'Fact', idempotency_key: 'same' }));
    const second = await rt.facade.store(b, asStore({ content: 'y', cell_type: 'Fact', idempotency_key: 'same' }));
    expect(second.node_id).not.toBe(first.node_id);
  });

  it.each([
    ['cell_type', { content: 'x', cell_type: 'Opinion' }],
    ['salience', { content: 'x', cell_type: 'Fact', salience: 1.5 }],
    ['salience', { content: 'x', cell_type: 'Fact', salience: -0.1 }],
    ['content', { content: '', cell_type: 'Fact' }],
    ['content', { cell_type: 'Fact' }],
    ['scene_id', { content: 'x', cell_type: 'Fact', scene_id: 'not-a-uuid' }],
    ['source_agent', { content: 'x', cell_type: 'Fact', source_agent: 'mallory' }],
    ['tenant_id', { content: 'x', cell_type: 'Fact', tenant_id: 'other' }],
    ['colour', { content: 'x', cell_type: 'Fact', colour: 'red' }],
    ['source_ref.locator', { content: 'x', cell_type: 'Fact', source_ref: { kind: 'file' } }],
    ['metadata', { content: 'x', cell_type: 'Fact', metadata: ['not', 'an', 'object'] }],
    ['idempotency_key', { content: 'x', cell_type: 'Fact', idempotency_key: '' }],
  ])('refuses bad input naming %s and writes nothing', async (field, body) => {
    const t = freshTenant();
    const p = await rt.principal({ tenant: t, agent: 'a' });
    await expectInvalidField(rt.facade.store(p, asStore(body)), field);
    expect(await countCells(t)).toBe(0);
  });

  it('refuses oversize content and metadata with TOO_LARGE naming the field', async () => {
    const t = freshTenant();
    const p = await rt.principal({ tenant: t, agent: 'a' });
    // 'é' is two UTF-8 bytes: 16 385 of them exceed 32 KiB although the string has only 16 385 characters.
    const content = await expectCode(rt.facade.store(p, asStore({ content: 'é'.repeat(16_385), cell_type: 'Fact' })), 'TOO_LARGE');
    expect(content.details).toMatchObject({ field: 'content', limit_bytes: 32_768 });
    const metadata = await expectCode(rt.facade.store(p, asStore({ content: 'x', cell_type: 'Fact', metadata: { blob: 'x'.repeat(16_384) } })), 'TOO_LARGE');
    expect(metadata.details).toMatchObject({ field: 'metadata', limit_bytes: 16_384 });
    expect(await countCells(t)).toBe(0);
    const atLimit = await rt.facade.store(p, asStore({ content: 'é'.repeat(16_384), cell_type: 'Fact' }));
    expect(atLimit.content).toHaveLength(16_384);
  });

  it('lists cells newest first with an opaque cursor that walks every cell once', async () => {
    const t = freshTenant();
    const p = await rt.principal({ tenant: t, agent: 'a' });
    const stored: string[] = [];
    for (let i = 0; i < 7; i++) stored.push((await rt.facade.store(p, asStore({ content: `cell ${i}`, cell_type: i % 2 === 0 ? 'Fact' : 'Task' }))).node_id);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await rt.facade.listCells(p, { limit: 3, ...(cursor === undefined ? {} : { cursor }) });
      seen.push(...page.items.map((c) => c.node_id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
    expect(seen).toEqual([...stored].reverse());
    const tasks = await rt.facade.listCells(p, { limit: 50, cell_type: 'Task' });
    expect(tasks.items.map((c) => c.cell_type)).toEqual(['Task', 'Task', 'Task']);
    expect((await rt.facade.listCells(p, { limit: 50, layer: 'L2' })).items).toEqual([]);
    await expectInvalidField(rt.facade.listCells(p, { limit: 3, cursor: 'garbage' }), 'cursor');
  });

  it('lists only projects in the key scope', async () => {
    const t = freshTenant();
    const wide = await rt.principal({ tenant: t, agent: 'wide', projects: ['*'], default_project: 'secret' });
    const narrow = await rt.principal({ tenant: t, agent: 'narrow', projects: ['open'] });
    await rt.facade.store(wide, asStore({ content: 'in secret', cell_type: 'Fact' }));
    const open = await rt.facade.store(narrow, asStore({ content: 'in open', cell_type: 'Fact' }));
    expect((await rt.facade.listCells(narrow, { limit: 50 })).items.map((c) => c.node_id)).toEqual([open.node_id]);
    expect((await rt.facade.listCells(narrow, { limit: 50, project: 'secret' })).items).toEqual([]);
    expect((await rt.facade.listCells(wide, { limit: 50 })).items).toHaveLength(2);
  });

  it('deletes a cell; a second delete and a get are NOT_FOUND; malformed ids are INVALID_ARGUMENT', async () => {
    const node = await rt.facade.store(writer, asStore({ content: 'temporary', cell_type: 'Task' }));
    await rt.facade.deleteCell(writer, node.node_id);
    await expectCode(rt.facade.getCell(writer, node.node_id), 'NOT_FOUND');
    await expectCode(rt.facade.deleteCell(writer, node.node_id), 'NOT_FOUND');
    await expectCode(rt.facade.getCell(writer, MISSING_ID), 'NOT_FOUND');
    await expectInvalidField(rt.facade.getCell(writer, 'nope'), 'node_id');
    await expectInvalidField(rt.facade.deleteCell(writer, 'nope'), 'node_id');
  });

  it('enforces roles: a reader cannot store or delete, a writer cannot administer keys', async () => {
    const t = freshTenant();
    const reader = await rt.principal({ tenant: t, agent: 'r', roles: ['reader'] });
    const w = await rt.principal({ tenant: t, agent: 'w' });
    const node = await rt.facade.store(w, asStore({ content: 'x', cell_type: 'Fact' }));
    await expectCode(rt.facade.store(reader, asStore({ content: 'x', cell_type: 'Fact' })), 'FORBIDDEN');
    await expectCode(rt.facade.deleteCell(reader, node.node_id), 'FORBIDDEN');
    expect((await rt.facade.getCell(reader, node.node_id)).node_id).toBe(node.node_id);
    await expectCode(rt.facade.listKeys(w), 'FORBIDDEN');
    await expectCode(rt.facade.openSession(reader, { project: 'p' }), 'FORBIDDEN');
  });
});
