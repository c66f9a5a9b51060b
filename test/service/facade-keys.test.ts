import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { expectCode, expectInvalidField, freshTenant, MISSING_ID } from '../support/facade-expectations.js';

describe.each(TEST_DRIVERS)('keys and principals on %s', (driver) => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await createTestRuntime({ driver });
  });
  afterAll(async () => rt.close());

  it('mints hy_ keys, stores only their SHA-256 and a display prefix, and resolves them to principals', async () => {
    const tenant = freshTenant();
    const minted = await rt.mintKey({ tenant, agent: 'ci-bot', roles: ['reader'], projects: ['web', 'api'], trust: 0.8 });
    expect(minted.key).toMatch(/^hy_[A-Za-z0-9_-]{43}$/);
    expect(minted.principal).toEqual({
      tenantId: tenant,
      agent: 'ci-bot',
      keyId: minted.info.key_id,
      roles: ['reader'],
      projects: ['web', 'api'],
      defaultProject: 'web',
      trust: expect.closeTo(0.8, 5) as number,
    });
    const { rows } = await rt.db.query<{ hash_hex: string; key_prefix: string }>(
      `SELECT encode(key_hash, 'hex') AS hash_hex, key_prefix FROM api_keys WHERE key_id = $1`,
      [minted.info.key_id],
    );
    expect(rows[0]?.key_prefix).toBe(minted.key.slice(0, 10));
    expect(rows[0]?.hash_hex).toMatch(/^[0-9a-f]{64}$/);
    const { rows: leaked } = await rt.db.query(`SELECT 1 FROM api_keys WHERE key_prefix = $1 OR encode(key_hash, 'escape') LIKE $2`, [minted.key, `%${minted.key.slice(3)}%`]);
    expect(leaked).toEqual([]);
  });

  it('only a tenant-wide admin mints for an agent the tenant knows without an unrevoked key', async () => {
    const tenant = freshTenant();
    const root = await rt.principal({ tenant, agent: 'root', roles: ['admin'], projects: ['*'], trust: 1 });
    const scoped = await rt.principal({ tenant, agent: 'p1-admin', roles: ['admin'], projects: ['p1'], trust: 0.5 });
    // An agent whose keys were revoked (as an OAuth-only agent, it may hold any reach elsewhere).
    const chief = await rt.mintKey({ tenant, agent: 'chief', roles: ['admin'], projects: ['p2'], trust: 0.9 });
    await rt.facade.revokeKey(root, chief.info.key_id);
    const asChief = { tenant, agent: 'chief', roles: ['writer' as const], projects: ['p1'], trust: 0 };
    const refused = await expectCode(rt.facade.createKey(scoped, asChief), 'FORBIDDEN');
    expect(refused.details).toMatchObject({ exceeds: 'agent_keys' });
    expect((await rt.facade.createKey(root, asChief)).agent).toBe('chief');
    // A name the tenant has never seen is a new agent any admin may mint within its reach.
    expect((await rt.facade.createKey(scoped, { ...asChief, agent: 'newcomer' })).agent).toBe('newcomer');
  });

  it('unknown, malformed and revoked keys are UNAUTHENTICATED', async () => {
    await expectCode(rt.facade.authenticate('hy_unknownunknownunknownunknown'), 'UNAUTHENTICATED');
    await expectCode(rt.facade.authenticate('not-a-key'), 'UNAUTHENTICATED');
    await expectCode(rt.facade.authenticate(''), 'UNAUTHENTICATED');
    const tenant = freshTenant();
    const admin = await rt.principal({ tenant, agent: 'root', roles: ['admin'] });
    const victim = await rt.mintKey({ tenant, agent: 'leaky' });
    await rt.facade.revokeKey(admin, victim.info.key_id);
    await expectCode(rt.facade.authenticate(victim.key), 'UNAUTHENTICATED');
    const listed = await rt.facade.listKeys(admin);
    expect(listed.find((k) => k.key_id === victim.info.key_id)?.revoked_at).not.toBeNull();
    expect(JSON.stringify(listed)).not.toContain(victim.key);
  });

  it('a revocation takes effect at once on the revoking replica even with a principal cached', async () => {
    const cached = await createTestRuntime({ driver, authCacheTtlMs: 60_000 });
    try {
      const tenant = freshTenant();
      const admin = await cached.principal({ tenant, agent: 'root', roles: ['admin'] });
      const victim = await cached.mintKey({ tenant, agent: 'v' });
      expect((await cached.facade.authenticate(victim.key)).agent).toBe('v');
      await cached.facade.revokeKey(admin, victim.info.key_id);
      await expectCode(cached.facade.authenticate(victim.key), 'UNAUTHENTICATED');
    } finally {
      await cached.close();
    }
  });

  it('admin operations need the admin role and stay within the admin tenant', async () => {
    const tenant = freshTenant();
    const admin = await rt.principal({ tenant, agent: 'root', roles: ['admin'] });
    const writer = await rt.principal({ tenant, agent: 'w' });
    await expectCode(rt.facade.createKey(writer, { tenant, agent: 'x', roles: ['writer'], projects: ['*'], trust: 0.5 }), 'FORBIDDEN');
    await expectCode(rt.facade.revokeKey(writer, admin.keyId), 'FORBIDDEN');
    const created = await rt.facade.createKey(admin, { tenant, agent: 'new-agent', roles: ['writer'], projects: ['*'], trust: 0.5 });
    expect(created.key).toMatch(/^hy_/);
    expect((await rt.facade.authenticate(created.key)).agent).toBe('new-agent');
    await expectCode(rt.facade.revokeKey(admin, MISSING_ID), 'NOT_FOUND');
    await expectInvalidField(rt.facade.revokeKey(admin, 'k-1'), 'key_id');
    await expectInvalidField(rt.facade.createKey(admin, { tenant, agent: 'x', roles: ['god'], projects: ['*'], trust: 0.5 } as never), 'roles.0');
    await expectInvalidField(rt.facade.createKey(admin, { tenant, agent: 'x', roles: ['writer'], projects: ['*'], trust: 2 }), 'trust');
  });

  it('key administration (CLI path) lists every tenant, revokes by id and refuses a default project outside the scope', async () => {
    const tenant = freshTenant();
    const info = await rt.keyAdmin.createKey({ tenant, agent: 'cli' });
    expect(info).toMatchObject({ roles: ['writer'], projects: ['*'], default_project: 'default', trust: 0.5 });
    expect((await rt.keyAdmin.listKeys()).map((k) => k.key_id)).toContain(info.key_id);
    expect((await rt.keyAdmin.listKeys(tenant)).map((k) => k.key_id)).toEqual([info.key_id]);
    expect((await rt.keyAdmin.revokeKey(info.key_id)).revoked_at).not.toBeNull();
    await expectInvalidField(rt.keyAdmin.createKey({ tenant, agent: 'x', projects: ['a'], default_project: 'b' }), 'default_project');
    await expectInvalidField(rt.keyAdmin.createKey({ tenant: 'bad tenant!', agent: 'x' }), 'tenant');
  });

  it('bootstraps one admin key for tenant default on an empty database, and never again', async () => {
    const empty = await createTestRuntime({ driver });
    try {
      const results = await Promise.all([empty.keyAdmin.bootstrapAdminKey(), empty.keyAdmin.bootstrapAdminKey()]);
      const minted = results.filter((r) => r !== null);
      expect(minted).toHaveLength(1);
      expect(minted[0]).toMatchObject({ tenant: 'default', agent: 'admin', roles: ['admin'], projects: ['*'], default_project: 'default' });
      expect(await empty.keyAdmin.bootstrapAdminKey()).toBeNull();
      const principal = await empty.facade.authenticate(minted[0]?.key ?? '');
      expect(principal.roles).toEqual(['admin']);
    } finally {
      await empty.close();
    }
  });
});
