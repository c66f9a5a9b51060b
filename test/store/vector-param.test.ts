import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { VectorFormatError } from '../../src/store/errors.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import { openPgliteDb } from '../../src/store/pglite-driver.js';
import { toVectorParam, vectorParamFromText, vectorParamValues } from '../../src/store/vector-param.js';
import { parseVectorText, toVectorText } from '../../src/store/vector-text.js';
import { skipWithoutPostgres, startRealPostgres, type RealPostgres } from '../support/real-postgres.js';

// -0 prints as 0: the same vector for every distance pgvector computes.
const component = fc.float({ noNaN: true, noDefaultInfinity: true }).map((x) => (x === 0 ? 0 : x));

describe('toVectorParam', () => {
  it('writes what pgvector reads: int16 dimensions, int16 zero, big-endian float4 components', () => {
    const param = toVectorParam([1, -2.5]);
    expect(Array.from(param)).toEqual([0, 2, 0, 0, 0x3f, 0x80, 0, 0, 0xc0, 0x20, 0, 0]);
  });

  it('round-trips every finite float32 vector exactly, and agrees with the text form', () => {
    fc.assert(
      fc.property(fc.array(component, { minLength: 1, maxLength: 64 }), (values) => {
        const vector = Float32Array.from(values);
        expect(vectorParamValues(toVectorParam(vector))).toEqual(vector);
        expect(vectorParamFromText(toVectorText(vector)).equals(toVectorParam(vector))).toBe(true);
      }),
    );
  });

  it('refuses vectors pgvector would reject, naming the component', () => {
    expect(() => toVectorParam([])).toThrow(VectorFormatError);
    expect(() => toVectorParam([1, Number.NaN])).toThrow('vector component 1 is not a finite number');
    expect(() => toVectorParam([Number.NEGATIVE_INFINITY])).toThrow('vector component 0 is not a finite number');
    // Finite in JavaScript, infinite as a float4.
    expect(() => toVectorParam([0, 0, 1e39])).toThrow('vector component 2 is not a finite number');
    expect(() => toVectorParam(new Float32Array(16_001))).toThrow('at most 16000 dimensions');
    expect(() => vectorParamValues(Buffer.from([0, 2, 0, 0, 1]))).toThrow(VectorFormatError);
  });
});

/** Binds vectors in binary through a real driver; PostgreSQL prints back what it received. */
function describeBinding(name: string, skip: boolean, open: () => Promise<{ db: Db; close(): Promise<void> }>): void {
  describe.skipIf(skip)(`binary vector parameters on ${name}`, () => {
    let db: Db;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ db, close } = await open());
      await db.query('CREATE EXTENSION IF NOT EXISTS vector');
      await db.query('CREATE TABLE IF NOT EXISTS vector_param_probe (id int PRIMARY KEY, v vector(3))');
    });
    afterAll(async () => {
      await close();
    });

    it('stores and compares exactly the vector bound, inside and outside a transaction', async () => {
      const vectors = [Float32Array.of(0.1, -2, 3e-7), Float32Array.of(1, 0, 0), Float32Array.of(-1e-30, 65504.5, 0.3333333)];
      for (const [i, v] of vectors.entries()) await db.query('INSERT INTO vector_param_probe (id, v) VALUES ($1, $2::vector)', [i, toVectorParam(v)]);
      const { rows } = await db.query<{ id: number; v: string }>('SELECT id, v::text AS v FROM vector_param_probe ORDER BY id');
      expect(rows.map((r) => parseVectorText(r.v))).toEqual(vectors);
      const nearest = await db.transaction((tx) =>
        tx.query<{ id: number; distance: number }>('SELECT id, (v <-> $1::vector)::float8 AS distance FROM vector_param_probe ORDER BY v <-> $1::vector LIMIT 1', [
          toVectorParam([0.9, 0, 0]),
        ]),
      );
      expect(nearest.rows[0]?.id).toBe(1);
      expect(nearest.rows[0]?.distance).toBeCloseTo(0.1, 6);
    });

    it('refuses a binary vector of the wrong dimension with the column’s own error, and keeps the rows', async () => {
      await expect(db.query('INSERT INTO vector_param_probe (id, v) VALUES (9, $1::vector)', [toVectorParam([1, 2])])).rejects.toThrow(/expected 3 dimensions, not 2/);
      const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM vector_param_probe');
      expect(rows[0]?.n).toBe(3);
    });
  });
}

describeBinding('PGlite', false, async () => {
  const db = await openPgliteDb();
  return { db, close: () => db.close() };
});

describeBinding('PGlite through its own query (cached statements off)', false, async () => {
  const db = await openPgliteDb({ cachedStatements: false });
  return { db, close: () => db.close() };
});

describeBinding('native PostgreSQL', skipWithoutPostgres(), async () => {
  const server: RealPostgres = await startRealPostgres();
  const db = await openPgDb({ url: server.url, max: 2 });
  return {
    db,
    close: async (): Promise<void> => {
      await db.close();
      await server.close();
    },
  };
});
