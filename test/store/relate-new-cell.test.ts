/**
 * A new cell's declared relations, written by hyphae_relate_new_cell from the cell's own insert
 * (migration 0043, src/store/relation-repository.ts): only the targets the caller may read — cells
 * of its tenant, in its projects, not expired — are related and answered as readable; a replayed
 * idempotency key writes neither the cell nor its relations. On PGlite, and on native PostgreSQL
 * when it is installed.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertCell, type NewCell } from '../../src/store/cell-repository.js';
import type { Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrator.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import { insertCellRelating, relationsFrom } from '../../src/store/relation-repository.js';
import { toVectorParam } from '../../src/store/vector-param.js';
import { createDatabase, skipWithoutPostgres, startRealPostgres, type RealPostgres } from '../support/real-postgres.js';
import { newCell } from './new-cell.js';
import { createTestDb } from '../support/test-db.js';

const DIMENSION = 8;

const EMBEDDING = toVectorParam(Array.from({ length: DIMENSION }, (_, i) => (i + 1) / DIMENSION));

/** A cell of `tenantId` in `project`. */
function cellIn(tenantId: string, project: string, overrides: Partial<NewCell> = {}): NewCell {
  return newCell(tenantId, EMBEDDING, { project, ...overrides });
}

async function stored(db: Db, cell: NewCell): Promise<string> {
  const row = await insertCell(db, cell);
  if (row === null) throw new Error('cell not inserted');
  return row.node_id;
}

function relateNewCellScenarios(open: () => Db): void {
  let mine: string;
  let otherProject: string;
  let foreign: string;
  let expired: string;
  const missing = randomUUID();

  beforeAll(async () => {
    const db = open();
    mine = await stored(db, cellIn('t', 'p'));
    otherProject = await stored(db, cellIn('t', 'q'));
    foreign = await stored(db, cellIn('u', 'p'));
    // Expired and not yet swept: still a row, no longer a cell anyone reads.
    expired = await stored(db, cellIn('t', 'p', { expiresAt: new Date(Date.now() - 60_000) }));
  });

  it('relates the new cell to the targets of its tenant, projects and lifetime only, and answers those as readable', async () => {
    const db = open();
    const until = new Date(Date.now() + 86_400_000).toISOString();
    const cell = cellIn('t', 'p');
    const relations = [
      { to: mine, type: 'answers', valid_until: until },
      { to: mine, type: 'depends_on' },
      ...[otherProject, foreign, expired, missing].map((to) => ({ to, type: 'answers' })),
    ];
    const made = await db.transaction((tx) => insertCellRelating(tx, cell, relations, ['p']));
    expect(made?.row.node_id).toBe(cell.nodeId);
    expect([...(made?.readable ?? [])]).toEqual([mine]);
    const written = await relationsFrom(db, 't', cell.nodeId, null);
    expect(written.map((r) => [r.to, r.type, r.valid_until ? Date.parse(r.valid_until) : null])).toEqual([
      [mine, 'answers', Date.parse(until)],
      [mine, 'depends_on', null],
    ]);
  });

  it('reads every project of the tenant when the caller may read them all', async () => {
    const db = open();
    const cell = cellIn('t', 'p');
    const made = await db.transaction((tx) => insertCellRelating(tx, cell, [otherProject, foreign].map((to) => ({ to, type: 'answers' })), null));
    expect([...(made?.readable ?? [])]).toEqual([otherProject]);
    expect((await relationsFrom(db, 't', cell.nodeId, null)).map((r) => r.to)).toEqual([otherProject]);
  });

  it('writes no relation for a replayed idempotency key', async () => {
    const db = open();
    const first = cellIn('t', 'p', { idempotencyKey: 'k' });
    await db.transaction((tx) => insertCellRelating(tx, first, [{ to: mine, type: 'answers' }], ['p']));
    const replay = cellIn('t', 'p', { idempotencyKey: 'k' });
    expect(await db.transaction((tx) => insertCellRelating(tx, replay, [{ to: otherProject, type: 'answers' }], null))).toBeNull();
    expect((await relationsFrom(db, 't', first.nodeId, null)).map((r) => r.to)).toEqual([mine]);
    expect(await relationsFrom(db, 't', replay.nodeId, null)).toEqual([]);
  });
}

describe('a new cell relates to what its writer may read (PGlite)', () => {
  let db: Db;
  beforeAll(async () => {
    db = await createTestDb({ dimension: DIMENSION });
  });
  afterAll(async () => {
    await db?.close();
  });
  relateNewCellScenarios(() => db);
});

describe.skipIf(skipWithoutPostgres())('a new cell relates to what its writer may read (native PostgreSQL)', { timeout: 120_000 }, () => {
  let server: RealPostgres;
  let db: Db;
  beforeAll(async () => {
    server = await startRealPostgres();
    db = await openPgDb({ url: await createDatabase(server, 'relate'), max: 2 });
    await migrate(db, { modelId: 'test', dimension: DIMENSION });
  });
  afterAll(async () => {
    await db?.close();
    await server?.close();
  });
  relateNewCellScenarios(() => db);
});
