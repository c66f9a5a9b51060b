/**
 * The relation and subgraph scenarios (test/support/relation-scenarios.ts, subgraph-scenarios.ts)
 * on native PostgreSQL 18 with pgvector: the subgraph's recursive statement, the relations'
 * foreign keys and the advisory lock of an addition as a real server runs them; the subgraph
 * statement planned once per connection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgDb } from '../../src/store/pg-driver.js';
import { subgraphOf } from '../../src/store/subgraph-query.js';
import { freshTenant } from '../support/facade-expectations.js';
import { skipWithoutPostgres } from '../support/real-postgres.js';
import { relationScenarios } from '../support/relation-scenarios.js';
import { subgraphScenarios } from '../support/subgraph-scenarios.js';
import { startNativeHarness, type NativeHarness } from './native-harness.js';

describe.skipIf(skipWithoutPostgres())('relations and subgraphs on native PostgreSQL', { timeout: 180_000 }, () => {
  let native: NativeHarness;

  beforeAll(async () => {
    native = await startNativeHarness();
  }, 180_000);
  afterAll(async () => native?.close());

  describe('relations', () => relationScenarios(() => native.harness));
  describe('subgraph', () => subgraphScenarios(() => native.harness));

  it('plans the subgraph statement once per connection: a prepared statement with a generic plan', async () => {
    const tenant = freshTenant();
    const p = await native.harness.principal({ tenant, agent: 'a', default_project: 'p' });
    const start = (await native.harness.facade.store(p, { content: 'The ferry to the island leaves at nine.', cell_type: 'Fact', salience: 0.5 })).node_id;
    const db = await openPgDb({ url: native.url, max: 1 });
    try {
      const request = { tenantId: tenant, projects: null, startNodeId: start, depth: 2, maxMembers: 10, relationTypes: null, previewChars: 280, at: new Date() };
      for (let i = 0; i < 3; i += 1) expect((await subgraphOf(db, request))?.members.map((m) => m.id)).toEqual([start]);
      const plans = await db.query("SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE statement LIKE '%WITH RECURSIVE walk%'");
      expect(plans.rows).toEqual([{ generic: 3, custom: 0 }]);
    } finally {
      await db.close();
    }
  });
});
