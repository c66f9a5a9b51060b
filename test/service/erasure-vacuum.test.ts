/**
 * A large erasure vacuums the tables it deleted from once it is done (docs/forgetting.md): the
 * erased rows' space is freed now, not when the dead-row rule next fires. The threshold is lowered
 * to 3 cells here. cell_relations is one routine maintenance never vacuums: only the erasure's does.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { freshTenant } from '../support/facade-expectations.js';
import { createTestRuntime, type TestRuntime } from '../support/test-runtime.js';
import { waitFor } from '../support/wait-for.js';

describe('vacuum after a large erasure', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await createTestRuntime({ driver: 'pglite', facade: { erasureVacuumCells: 3 } });
  });
  afterAll(async () => rt.close());

  const vacuums = async (): Promise<number> => {
    await rt.db.query('SELECT pg_stat_force_next_flush()');
    const { rows } = await rt.db.query<{ n: string | number }>(`SELECT vacuum_count AS n FROM pg_stat_user_tables WHERE relname = 'cell_relations'`);
    return Number(rows[0]?.n ?? 0);
  };

  it('runs after an erasure of at least the threshold of cells', async () => {
    const tenant = freshTenant();
    const admin = await rt.principal({ tenant, agent: 'ops', roles: ['admin'] });
    const large = await rt.principal({ tenant, agent: 'large' });
    for (let i = 0; i < 3; i++) await rt.facade.store(large, { content: `large note ${i}`, cell_type: 'Fact', salience: 0.5 });
    const start = await vacuums();
    await rt.facade.eraseAgentMemories(admin, { agent: 'large' });
    await waitFor(async () => (await vacuums()) > start);
  });
});
