import { describe, expect, it } from 'vitest';
import type { Role } from './cell-types.js';
import { isTenantAdmin, mintRefusal, reachExcess, type KeyReach } from './key-authority.js';

const reach = (roles: Role[], projects: string[], trust: number): KeyReach => ({ roles, projects, trust });

const tenantAdmin = reach(['admin'], ['*'], 0.8);
const projectAdmin = reach(['admin'], ['p1', 'p3'], 0.8);

describe('reachExcess', () => {
  it('admits a key within every bound, the caller itself included', () => {
    expect(reachExcess(tenantAdmin, tenantAdmin)).toBeNull();
    expect(reachExcess(projectAdmin, projectAdmin)).toBeNull();
    expect(reachExcess(tenantAdmin, reach(['writer'], ['p2'], 0.8))).toBeNull();
    expect(reachExcess(projectAdmin, reach(['reader', 'writer'], ['p3'], 0))).toBeNull();
  });

  it('names projects beyond the caller’s, and every-project for all but a tenant-wide caller', () => {
    expect(reachExcess(projectAdmin, reach(['reader'], ['p1', 'p2'], 0.5))).toBe('projects');
    expect(reachExcess(projectAdmin, reach(['reader'], ['*'], 0.5))).toBe('projects');
    expect(reachExcess(projectAdmin, reach(['reader'], ['p1', '*'], 0.5))).toBe('projects');
    expect(reachExcess(tenantAdmin, reach(['reader'], ['*'], 0.5))).toBeNull();
  });

  it('ranks roles admin ⊇ writer ⊇ reader', () => {
    const writer = reach(['writer'], ['*'], 1);
    expect(reachExcess(writer, reach(['reader'], ['p1'], 1))).toBeNull();
    expect(reachExcess(writer, reach(['writer'], ['p1'], 1))).toBeNull();
    expect(reachExcess(writer, reach(['admin'], ['p1'], 1))).toBe('roles');
    expect(reachExcess(reach(['reader'], ['*'], 1), reach(['writer'], ['p1'], 1))).toBe('roles');
    expect(reachExcess(reach(['reader', 'admin'], ['*'], 1), reach(['admin'], ['p1'], 1))).toBeNull();
  });

  it('names trust above the caller’s, tenant-wide callers included', () => {
    expect(reachExcess(tenantAdmin, reach(['reader'], ['p1'], 0.81))).toBe('trust');
    expect(reachExcess(projectAdmin, reach(['reader'], ['p1'], 1))).toBe('trust');
  });

  it('compares trust as PostgreSQL stores it (real), so a caller read back as 0.699999988 mints 0.7', () => {
    const storedSeven = Math.fround(0.7);
    expect(storedSeven).toBeLessThan(0.7);
    expect(reachExcess(reach(['admin'], ['*'], storedSeven), reach(['reader'], ['p1'], 0.7))).toBeNull();
    expect(reachExcess(reach(['admin'], ['*'], storedSeven), reach(['reader'], ['p1'], 0.7000001))).toBe('trust');
  });
});

describe('mintRefusal', () => {
  it('refuses a key beyond the caller before looking at its agent', () => {
    expect(mintRefusal(projectAdmin, reach(['admin'], ['*'], 1), [])).toBe('projects');
  });

  it('admits a first key within bounds', () => {
    expect(mintRefusal(projectAdmin, reach(['admin'], ['p1'], 0.8), [])).toBeNull();
  });

  it('refuses an agent holding any key beyond the caller, for a tenant-wide admin too', () => {
    expect(mintRefusal(projectAdmin, reach(['reader'], ['p1'], 0.1), [reach(['reader'], ['p1'], 0.1), reach(['reader'], ['p2'], 0.1)])).toBe('agent_keys');
    expect(mintRefusal(tenantAdmin, reach(['reader'], ['p1'], 0.1), [reach(['reader'], ['p1'], 0.9)])).toBe('agent_keys');
  });

  it('lets only a tenant-wide admin raise an agent’s trust, never above its own', () => {
    const held = [reach(['writer'], ['p1'], 0.3), reach(['reader'], ['p3'], 0.5)];
    expect(mintRefusal(projectAdmin, reach(['writer'], ['p1'], 0.5), held)).toBeNull();
    expect(mintRefusal(projectAdmin, reach(['writer'], ['p1'], 0.6), held)).toBe('agent_trust');
    expect(mintRefusal(tenantAdmin, reach(['writer'], ['p1'], 0.6), held)).toBeNull();
    expect(mintRefusal(tenantAdmin, reach(['writer'], ['p1'], 0.9), held)).toBe('trust');
  });

  it('lets only a tenant-wide admin mint for an agent the tenant knows without an unrevoked key', () => {
    expect(mintRefusal(projectAdmin, reach(['writer'], ['p1'], 0), [], true)).toBe('agent_keys');
    expect(mintRefusal(tenantAdmin, reach(['writer'], ['p1'], 0), [], true)).toBeNull();
    expect(mintRefusal(projectAdmin, reach(['writer'], ['p1'], 0), [], false)).toBeNull();
  });

  it('counts a tenant-wide admin only with both the admin role and every project', () => {
    expect(isTenantAdmin(tenantAdmin)).toBe(true);
    expect(isTenantAdmin(projectAdmin)).toBe(false);
    expect(isTenantAdmin(reach(['writer'], ['*'], 1))).toBe(false);
  });
});
