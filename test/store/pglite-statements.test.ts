import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openPgliteDb, type PgliteDb } from '../../src/store/pglite-driver.js';
import { PgliteStatements } from '../../src/store/pglite-statements.js';
import { loadTemplate } from '../support/test-db.js';

/** The driver's own named statements in the session (PREPARE statements have from_sql = true). */
async function preparedStatements(db: PgliteDb): Promise<string[]> {
  const { rows } = await db.query<{ statement: string }>(`SELECT statement FROM pg_prepared_statements WHERE NOT from_sql ORDER BY statement`);
  return rows.map((r) => r.statement);
}

const TYPED = `SELECT $1::text[] AS words, $2::jsonb AS doc, $3::bytea AS raw, $4::timestamptz AS at, $5::boolean AS flag,
  $6::int8 AS big, $7::float8 AS ratio, $8::int[] AS ints, $9::text AS nothing, $10::uuid AS id`;
const TYPED_PARAMS = [
  ['plain', 'with "quote"', 'back\\slash', null, '', 'comma, brace}'],
  { nested: { list: [1, 'two', null] }, s: 'é ✓' },
  new Uint8Array([0, 1, 254, 255]),
  new Date('2026-01-02T03:04:05.678Z'),
  false,
  9_007_199_254_740_991,
  0.1,
  [3, -1, 0],
  null,
  '6f1d3c9e-8a55-4d0c-9a87-1c2b3d4e5f60',
];

describe('PGlite cached statements', () => {
  let db: PgliteDb;
  beforeEach(async () => {
    db = await openPgliteDb({ loadFrom: await loadTemplate({ migrated: false }) });
    await db.query(`CREATE TABLE items (id int PRIMARY KEY, label text NOT NULL)`);
  });
  afterEach(async () => {
    await db.close();
  });

  it('parses a repeated statement once and reuses it', async () => {
    for (let i = 0; i < 3; i++) await db.query(`INSERT INTO items (id, label) VALUES ($1, $2)`, [i, `item ${i}`]);
    const { rows } = await db.query<{ statement: string }>(`SELECT statement FROM pg_prepared_statements WHERE NOT from_sql AND statement LIKE 'INSERT INTO items%'`);
    expect(rows).toHaveLength(1);
    expect((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM items WHERE label LIKE $1`, ['item %'])).rows).toEqual([{ n: 3 }]);
  });

  it('binds every parameter type as PGlite’s own query does, and reads the same rows', async () => {
    const plain = await openPgliteDb({ loadFrom: await loadTemplate({ migrated: false }), cachedStatements: false });
    try {
      const mine = await db.query(TYPED, TYPED_PARAMS);
      const theirs = await plain.query(TYPED, TYPED_PARAMS);
      expect(mine.rows).toEqual(theirs.rows);
      expect(mine.rows[0]).toMatchObject({ words: TYPED_PARAMS[0], doc: TYPED_PARAMS[1], flag: false, big: 9_007_199_254_740_991, nothing: null });
      expect(Array.from(mine.rows[0]?.raw as Uint8Array)).toEqual([0, 1, 254, 255]);
      expect((mine.rows[0]?.at as Date).toISOString()).toBe('2026-01-02T03:04:05.678Z');
    } finally {
      await plain.close();
    }
  });

  it('reports rowCount as the command tag says, for DML and SELECT', async () => {
    await db.query(`INSERT INTO items (id, label) SELECT g, 'x' FROM generate_series(1, 4) g WHERE g > $1`, [0]);
    expect((await db.query(`UPDATE items SET label = $1 WHERE id > 2`, ['y'])).rowCount).toBe(2);
    expect((await db.query(`SELECT id FROM items WHERE label = $1`, ['x'])).rowCount).toBe(2);
  });

  it('keeps a statement whose execution failed, and leaves no statement behind a failed parse', async () => {
    const insert = `INSERT INTO items (id, label) VALUES ($1, $2)`;
    await db.query(insert, [1, 'one']);
    await expect(db.query(insert, [1, 'again'])).rejects.toMatchObject({ code: '23505' });
    await db.query(insert, [2, 'two']);
    await expect(db.query(`SELEC broken $1`, [1])).rejects.toMatchObject({ code: '42601' });
    await expect(db.query(`SELECT no_such_column FROM items WHERE id = $1`, [1])).rejects.toMatchObject({ code: '42703' });
    expect((await db.query(`SELECT label FROM items WHERE id = $1`, [2])).rows).toEqual([{ label: 'two' }]);
    const names = await preparedStatements(db);
    expect(names.some((s) => s.includes('SELEC broken') || s.includes('no_such_column'))).toBe(false);
  });

  it('a statement cached before DDL that changes its result type still runs after it', async () => {
    const read = `SELECT id FROM items WHERE id = $1`;
    await db.query(`INSERT INTO items (id, label) VALUES ($1, $2)`, [7, 'seven']);
    expect((await db.query(read, [7])).rows).toEqual([{ id: 7 }]);
    await db.query(`ALTER TABLE items ALTER COLUMN id TYPE text`);
    expect((await db.query(read, ['7'])).rows).toEqual([{ id: '7' }]);
    // The same inside a transaction: DDL there closes the cached statements too.
    await db.transaction(async (tx) => {
      expect((await tx.query(read, ['7'])).rows).toEqual([{ id: '7' }]);
      await tx.query(`ALTER TABLE items ALTER COLUMN id TYPE varchar(10)`);
      expect((await tx.query(read, ['7'])).rows).toEqual([{ id: '7' }]);
    });
  });

  it('a statement outside a transaction waits for an open one to end instead of joining it', async () => {
    let insideStarted!: () => void;
    const started = new Promise<void>((resolve) => (insideStarted = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const rolledBack = db
      .transaction(async (tx) => {
        await tx.query(`INSERT INTO items (id, label) VALUES ($1, $2)`, [1, 'uncommitted']);
        insideStarted();
        await held;
        throw new Error('roll back');
      })
      .catch((error: unknown) => error);
    await started;
    const outside = db.query<{ n: number }>(`SELECT count(*)::int AS n FROM items WHERE id = $1`, [1]);
    release();
    expect(await rolledBack).toBeInstanceOf(Error);
    expect((await outside).rows).toEqual([{ n: 0 }]);
  });

  it('closes the least recently used statement past its capacity', async () => {
    const statements = new PgliteStatements(db.pglite, 2);
    const run = (sql: string, value: number): Promise<unknown> => db.pglite._runExclusiveQuery(() => statements.run(sql, [value]));
    await run(`SELECT $1::int AS a`, 1);
    await run(`SELECT $1::int AS b`, 2);
    await run(`SELECT $1::int AS a`, 3);
    await run(`SELECT $1::int AS c`, 4);
    expect(statements.size).toBe(2);
    // The eviction's Close goes out with the next batch.
    await run(`SELECT $1::int AS a`, 5);
    const own = (await preparedStatements(db)).filter((s) => /^SELECT \$1::int AS [abc]$/.test(s));
    expect(own.sort()).toEqual(['SELECT $1::int AS a', 'SELECT $1::int AS c']);
  });
});
