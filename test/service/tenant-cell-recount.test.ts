/**
 * How often a store counts its tenant's cells near the limit (src/service/facade/tenant-quotas.ts). A
 * count reads every cell of the tenant (1.4 s at a million under load, npm run bench scale), and
 * every store within a tenth of the limit used to make one: a tenant at 900k of a 1M limit stored
 * at well under one store a second. Now a process counts again after a tenth of the room its
 * last count left, and still stops exactly at the limit, alone or beside other processes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../../src/core/errors.js';
import { TenantQuotas } from '../../src/service/facade/tenant-quotas.js';
import type { Db, Queryable } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrator.js';
import { openPgliteDb } from '../../src/store/pglite-driver.js';
import { loadTemplate } from '../support/test-db.js';

const LIMIT = 2_000;
// The whole last tenth of the limit is left to store.
const PRELOADED = LIMIT - LIMIT / 10;
const VECTOR = `[${Array.from({ length: 512 }, () => '0.01').join(',')}]`;

describe('cell counts near the tenant limit', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openPgliteDb({ loadFrom: await loadTemplate() });
    await migrate(db, { modelId: 'hash-512', dimension: 512 });
  });
  afterAll(async () => db.close());

  /** The transaction with the count statements it runs tallied. */
  const counting = (tx: Queryable, counts: { n: number }): Queryable => ({
    query<Row>(sql: string, params?: readonly unknown[]) {
      if (sql.includes('count(*)')) counts.n += 1;
      return tx.query<Row>(sql, params);
    },
  });

  async function fill(tenant: string, processes: TenantQuotas[]): Promise<{ stored: number; counts: number }> {
    await db.query(
      `INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, embedding)
       SELECT gen_random_uuid(), $1, 'default', 'preloaded ' || g, 'Fact', 0.5, 'loader', $2::vector FROM generate_series(1, ${PRELOADED}) AS g`,
      [tenant, VECTOR],
    );
    const counts = { n: 0 };
    let stored = 0;
    // The processes take turns, each storing on what it last counted; the first refusal ends the run.
    for (let turn = 0; ; turn++) {
      const quotas = processes[turn % processes.length] as TenantQuotas;
      const admitted = await db
        .transaction(async (tx) => {
          await quotas.admitCell(counting(tx, counts), tenant);
          await tx.query(
            `INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, embedding) VALUES (gen_random_uuid(), $1, 'default', 'stored', 'Fact', 0.5, 'writer', $2::vector)`,
            [tenant, VECTOR],
          );
          return true;
        })
        .catch((error: unknown) => {
          if (error instanceof ConflictError) return false;
          throw error;
        });
      if (!admitted) break;
      stored += 1;
    }
    return { stored, counts: counts.n };
  }

  it('one process stores the last tenth of the limit exactly, counting far fewer times than it stores', async () => {
    const run = await fill('recount-one', [new TenantQuotas({ maxCellsPerTenant: LIMIT, maxOpenSessionsPerAgent: 10 })]);
    expect(run.stored).toBe(LIMIT - PRELOADED);
    // Every store counted before (200 counts); a tenth of the room each time, and every store of the last ten.
    expect(run.counts).toBeLessThan(run.stored / 4);
  });

  it('three processes taking turns stop exactly at the limit too', async () => {
    const processes = Array.from({ length: 3 }, () => new TenantQuotas({ maxCellsPerTenant: LIMIT, maxOpenSessionsPerAgent: 10 }));
    const run = await fill('recount-three', processes);
    expect(run.stored).toBe(LIMIT - PRELOADED);
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM cells WHERE tenant_id = 'recount-three'`);
    expect(rows[0]?.n).toBe(LIMIT);
  });
});
