/**
 * Who may erase what (docs/forgetting.md, docs/security.md): an admin of one tenant erases nothing
 * of another tenant and learns nothing of it — its agent, cell, source or project answers exactly as
 * a name that does not exist; an agent's or the tenant's erasure and the receipts need an admin key
 * scoped to every project; the tenant's confirmation token is bound to its key, used once, and
 * expires; and the receipts are append-only in the database itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErasureReceipt } from '../../src/core/erasure-schemas.js';
import { expectCode, freshTenant, MISSING_ID } from '../support/facade-expectations.js';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';

/** What a receipt tells beyond its own id and times. */
const told = (receipt: ErasureReceipt): unknown => ({ counts: receipt.counts, actor: receipt.actor_agent });

describe.each(TEST_DRIVERS)('erasure authority and tenancy on %s', (driver) => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await createTestRuntime({ driver });
  });
  afterAll(async () => rt.close());

  const victim = async (): Promise<{ tenant: string; bob: Awaited<ReturnType<TestRuntime['principal']>>; nodeId: string }> => {
    const tenant = freshTenant('b');
    const bob = await rt.principal({ tenant, agent: 'bob', default_project: 'secret' });
    const { node_id } = await rt.facade.store(bob, { content: 'bob keeps the vault code here', cell_type: 'Fact', salience: 0.5 });
    await rt.facade.ingestSource(bob, { text: 'the vault handbook', source_id: 'vault' });
    return { tenant, bob, nodeId: node_id };
  };
  const cellsOf = async (tenant: string): Promise<number> => (await rt.db.query<{ n: number }>('SELECT count(*)::int AS n FROM cells WHERE tenant_id = $1', [tenant])).rows[0]?.n ?? 0;

  it("another tenant's agent, cell, source and project answer as names that do not exist, and nothing of it goes", async () => {
    const b = await victim();
    const before = await cellsOf(b.tenant);
    const admin = await rt.principal({ tenant: freshTenant('a'), agent: 'ops', roles: ['admin'] });

    expect(told(await rt.facade.eraseAgentMemories(admin, { agent: 'bob' }))).toEqual(told(await rt.facade.eraseAgentMemories(admin, { agent: 'nobody' })));
    expect((await rt.facade.eraseAgentMemories(admin, { agent: 'bob' })).counts).toEqual({});
    const foreign = await expectCode(rt.facade.deleteCell(admin, b.nodeId), 'NOT_FOUND');
    const missing = await expectCode(rt.facade.deleteCell(admin, MISSING_ID), 'NOT_FOUND');
    expect(foreign.details).toEqual({ ...missing.details, id: b.nodeId });
    await expectCode(rt.facade.deleteCell(admin, b.nodeId, { include_history: true }), 'NOT_FOUND');
    const foreignSource = await expectCode(rt.facade.deleteSource(admin, { source_id: 'vault', project: 'secret' }), 'NOT_FOUND');
    const missingSource = await expectCode(rt.facade.deleteSource(admin, { source_id: 'nothing', project: 'secret' }), 'NOT_FOUND');
    expect(foreignSource.details).toEqual({ ...missingSource.details, id: 'vault' });
    const purgedAs = async (project: string): Promise<unknown> => {
      const { receipt, ...purged } = await rt.facade.purgeProject(admin, { project });
      return { ...purged, project: '', receipt: { ...receipt, receipt_id: '', started_at: '', erased_at: '', selector: { ...receipt.selector, project: '' } } };
    };
    expect(await purgedAs('secret')).toEqual(await purgedAs('nowhere'));

    const asked = await rt.facade.eraseTenant(admin, {});
    if (!('confirmation_token' in asked)) throw new Error('expected a token');
    await rt.facade.eraseTenant(admin, { confirmation: asked.confirmation_token });
    expect(await cellsOf(b.tenant)).toBe(before);
    expect((await rt.facade.getCell(b.bob, b.nodeId)).content).toContain('vault');
    // The receipts an admin reads are its own tenant's: none names bob's tenant's selectors.
    const bAdmin = await rt.principal({ tenant: b.tenant, agent: 'ops', roles: ['admin'] });
    expect((await rt.facade.listErasureReceipts(bAdmin, { limit: 50 })).receipts).toEqual([]);
  });

  it("an agent's or the tenant's erasure and the receipts need an admin key scoped to every project; a writer erases only what it may read", async () => {
    const b = await victim();
    const writer = await rt.principal({ tenant: b.tenant, agent: 'carol' });
    const reader = await rt.principal({ tenant: b.tenant, agent: 'dave', roles: ['reader'] });
    const scopedAdmin = await rt.principal({ tenant: b.tenant, agent: 'eve', roles: ['admin'], projects: ['secret'], default_project: 'secret' });
    const elsewhere = await rt.principal({ tenant: b.tenant, agent: 'frank', projects: ['other'], default_project: 'other' });
    for (const who of [writer, reader, scopedAdmin]) {
      await expectCode(rt.facade.eraseAgentMemories(who, { agent: 'bob' }), 'FORBIDDEN');
      await expectCode(rt.facade.eraseTenant(who, {}), 'FORBIDDEN');
      await expectCode(rt.facade.listErasureReceipts(who, { limit: 50 }), 'FORBIDDEN');
    }
    await expectCode(rt.facade.deleteCell(reader, b.nodeId), 'FORBIDDEN');
    await expectCode(rt.facade.deleteCell(elsewhere, b.nodeId), 'NOT_FOUND');
    await expectCode(rt.facade.deleteSource(elsewhere, { source_id: 'vault', project: 'secret' }), 'FORBIDDEN');
    // A project-scoped admin still purges its own project.
    expect((await rt.facade.purgeProject(scopedAdmin, { project: 'secret' })).cells).toBeGreaterThan(0);
  });

  it('a confirmation token works once, for the key it was issued to, before it expires', async () => {
    const tenant = freshTenant('c');
    const firstKey = await rt.mintKey({ tenant, agent: 'ops', roles: ['admin'] });
    const first = firstKey.principal;
    const second = await rt.principal({ tenant, agent: 'ops2', roles: ['admin'] });
    const outsider = await rt.principal({ tenant: freshTenant('d'), agent: 'ops', roles: ['admin'] });
    const token = async (): Promise<string> => {
      const asked = await rt.facade.eraseTenant(first, {});
      if (!('confirmation_token' in asked)) throw new Error('expected a token');
      return asked.confirmation_token;
    };
    const issued = await token();
    await expectCode(rt.facade.eraseTenant(second, { confirmation: issued }), 'INVALID_ARGUMENT');
    await expectCode(rt.facade.eraseTenant(outsider, { confirmation: issued }), 'INVALID_ARGUMENT');
    const late = await token();
    rt.clock.advance(5 * 60_000 + 1);
    await expectCode(rt.facade.eraseTenant(first, { confirmation: late }), 'INVALID_ARGUMENT');
    const fresh = await token();
    expect(await rt.facade.eraseTenant(first, { confirmation: fresh })).toMatchObject({ selector: { kind: 'tenant' } });
    await expectCode(rt.facade.eraseTenant(first, { confirmation: fresh }), 'INVALID_ARGUMENT');
    await expectCode(rt.facade.eraseTenant(first, { confirmation: 'short' }), 'INVALID_ARGUMENT');
    // The erasure revoked the tenant's keys.
    await expectCode(rt.facade.authenticate(firstKey.key), 'UNAUTHENTICATED');
  });

  it('receipts are append-only: the database refuses to update, delete or truncate them', async () => {
    const tenant = freshTenant('r');
    const admin = await rt.principal({ tenant, agent: 'ops', roles: ['admin'] });
    const receipt = await rt.facade.eraseAgentMemories(admin, { agent: 'nobody' });
    for (const sql of [`UPDATE erasure_receipts SET counts = '{}' WHERE receipt_id = $1`, `DELETE FROM erasure_receipts WHERE receipt_id = $1`]) {
      await expect(rt.db.query(sql, [receipt.receipt_id])).rejects.toThrow(/append-only/);
    }
    await expect(rt.db.query('TRUNCATE erasure_receipts')).rejects.toThrow(/append-only/);
    expect((await rt.facade.listErasureReceipts(admin, { limit: 50 })).receipts.map((r) => r.receipt_id)).toEqual([receipt.receipt_id]);
  });
});
