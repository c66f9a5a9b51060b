/**
 * The beacon matcher's early stop (src/mesh/beacon-matcher.ts, hyphae_beacon_candidates in
 * migration 0007) finds the same beacons as an exact scan, on PGlite and native PostgreSQL: the
 * beacons nearest the cell have thresholds it does not reach, farther ones have thresholds it does,
 * so a scan that ends at a beacon that does not match, or bounds the scan by anything but the
 * tenant's lowest threshold, drops beacons. Another tenant's beacons and expired ones sit among
 * them and must never come back. (Stopping at the first row below the lowest bound is wrong only
 * where the relaxed-order scan returns rows out of order, as it does at 100k 512-d beacons; eight
 * dimensions and two thousand rows come out in order, so that case is measured by the bench.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeReach, DEFAULT_ENERGY_TABLE } from '../../src/core/energy.js';
import { BeaconMatcher, type MatchableCell } from '../../src/mesh/beacon-matcher.js';
import type { Db } from '../../src/store/db.js';
import { applyMigrations } from '../../src/store/migrator.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import { openPgliteDb } from '../../src/store/pglite-driver.js';
import { vectorParamFromText } from '../../src/store/vector-param.js';
import { skipWithoutPostgres, startRealPostgres, type RealPostgres } from '../support/real-postgres.js';

const DIMENSION = 8;
const TENANT = 't';
const NOW = new Date('2030-01-01T00:00:00Z');
const REACH_FACTOR = 0.15;
const CELL_TEXT = `[1${',0'.repeat(DIMENSION - 1)}]`;
const CELL: MatchableCell = {
  tenantId: TENANT,
  project: 'p',
  cellType: 'Decision',
  salience: 0.5,
  sceneId: null,
  sourceAgent: 'author',
  embedding: vectorParamFromText(CELL_TEXT),
};
const REACH = computeReach(CELL.cellType, CELL.salience, REACH_FACTOR, DEFAULT_ENERGY_TABLE);
// Near the cell, beacons too demanding to match; farther out, many that match only with the reach.
const DEMANDING = 120;
const MATCHING = 240;
const NOISE = 1500;

interface Row {
  readonly tenant: string;
  readonly vector: string;
  readonly threshold: number;
  readonly expired: boolean;
}

function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** A unit vector at `similarity` to the cell (the first axis), the rest of it pointing at random. */
function atSimilarity(similarity: number, random: () => number): string {
  const rest = Array.from({ length: DIMENSION - 1 }, () => random() - 0.5);
  const norm = Math.hypot(...rest);
  const side = Math.sqrt(1 - similarity * similarity);
  return `[${[similarity, ...rest.map((x) => (x / norm) * side)].join(',')}]`;
}

function beaconRows(): Row[] {
  const random = lcg(12);
  const rows: Row[] = [];
  for (let i = 0; i < DEMANDING; i++) {
    const similarity = 0.9 - (0.1 * i) / DEMANDING;
    rows.push({ tenant: TENANT, vector: atSimilarity(similarity, random), threshold: similarity + REACH + 0.02, expired: false });
  }
  for (let i = 0; i < MATCHING; i++) {
    const similarity = 0.8 - (0.4 * i) / MATCHING;
    // Every third one asks for a little more than it gets: a miss among the matches.
    const threshold = i % 3 === 2 ? similarity + REACH + 0.01 : similarity + REACH - 0.01;
    rows.push({ tenant: TENANT, vector: atSimilarity(similarity, random), threshold, expired: false });
    // Another tenant's and an expired beacon beside it, each one that would match.
    if (i % 10 === 0) rows.push({ tenant: 'other', vector: atSimilarity(similarity, random), threshold: 0, expired: false });
    if (i % 10 === 5) rows.push({ tenant: TENANT, vector: atSimilarity(similarity, random), threshold: 0.3, expired: true });
  }
  for (let i = 0; i < NOISE; i++) rows.push({ tenant: TENANT, vector: atSimilarity(-0.6 + 0.8 * random(), random), threshold: 0.99, expired: false });
  return rows;
}

async function load(db: Db): Promise<void> {
  await applyMigrations(db, { dimension: DIMENSION });
  await db.query('DROP INDEX beacons_embedding');
  await db.query(
    `INSERT INTO beacons (beacon_id, tenant_id, owner_agent, owner_projects, text, embedding, threshold, expires_at)
     SELECT gen_random_uuid(), r.tenant, 'watcher-' || (r.n % 7), ARRAY['p'], 'interest', r.vector::vector, r.threshold,
       CASE WHEN r.expired THEN $2::timestamptz - interval '1 minute' END
     FROM jsonb_to_recordset($1::jsonb) AS r(n int, tenant text, vector text, threshold real, expired boolean)`,
    [JSON.stringify(beaconRows().map((row, n) => ({ n, ...row }))), NOW.toISOString()],
  );
  await db.query('CREATE INDEX beacons_embedding ON beacons USING hnsw (embedding vector_cosine_ops)');
  await db.query('ANALYZE beacons');
}

/** What matching every beacon of the tenant would find: no index, no early stop. */
async function exactMatches(db: Db): Promise<string[]> {
  const { rows } = await db.query<{ beacon_id: string }>(
    `SELECT beacon_id::text AS beacon_id FROM beacons
     WHERE tenant_id = $1 AND (expires_at IS NULL OR expires_at > $3) AND 1 - ((embedding <=> $2::vector) + 0) >= threshold::text::float8 - $4
     ORDER BY beacon_id`,
    [TENANT, CELL.embedding, NOW.toISOString(), REACH],
  );
  return rows.map((r) => r.beacon_id);
}

async function match(db: Db, options: { readonly initialBatch?: number; readonly maxBatch?: number } = {}): Promise<string[]> {
  const matcher = new BeaconMatcher({ reachFactor: REACH_FACTOR, energyTable: DEFAULT_ENERGY_TABLE, ...options });
  const found = await db.transaction((tx) => matcher.match(tx, CELL, NOW));
  return found.map((m) => m.beaconId).sort();
}

function describeMatcher(name: string, skip: boolean, open: () => Promise<{ db: Db; close(): Promise<void> }>): void {
  describe.skipIf(skip)(`beacon matching's early stop on ${name}`, () => {
    let db: Db;
    let close: () => Promise<void>;
    let exact: string[];

    beforeAll(async () => {
      ({ db, close } = await open());
      await load(db);
      exact = await exactMatches(db);
    });
    afterAll(async () => close());

    it('finds every beacon an exact scan finds, past nearer beacons that do not match, with chunks of 4 and of 16', async () => {
      // The thresholds are such that two thirds of the matching band match (160 of 240).
      expect(exact).toHaveLength((MATCHING * 2) / 3);
      expect(await match(db, { initialBatch: 4 })).toEqual(exact);
      expect(await match(db)).toEqual(exact);
    });

    it('finds the same through the HNSW index (a sequential scan and sort forbidden)', async () => {
      await db.query('SET enable_seqscan = off');
      await db.query('SET enable_sort = off');
      try {
        const { rows } = await db.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN SELECT beacon_id FROM beacons WHERE tenant_id = 't' ORDER BY embedding <=> '${CELL_TEXT}'::vector LIMIT 4096`,
        );
        expect(rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('beacons_embedding');
        expect(await match(db, { initialBatch: 4 })).toEqual(exact);
        expect(await match(db)).toEqual(exact);
      } finally {
        await db.query('RESET enable_seqscan');
        await db.query('RESET enable_sort');
      }
    });

    it('stops at the batch cap with matches among the nearest beacons only', async () => {
      const capped = await match(db, { initialBatch: 4, maxBatch: 200 });
      // The 120 demanding beacons come first, so 80 rows of the matching band are read, two thirds of them matching.
      expect(capped.length).toBeGreaterThan(40);
      expect(capped.length).toBeLessThan(exact.length);
      expect(capped.every((id) => exact.includes(id))).toBe(true);
    });
  });
}

describeMatcher('PGlite', false, async () => {
  const db = await openPgliteDb({});
  return { db, close: () => db.close() };
});

describeMatcher('native PostgreSQL', skipWithoutPostgres(), async () => {
  const server: RealPostgres = await startRealPostgres();
  // One connection, so the test's SET holds for every query.
  const db = await openPgDb({ url: server.url, max: 1 });
  return {
    db,
    close: async () => {
      await db.close();
      await server.close();
    },
  };
});
