import { describe, expect, it } from 'vitest';
import { operatorClusterRules } from '../rbac.js';
import { patroniRole, patroniRoleBinding, patroniRules, patroniServiceAccount } from './patroni-rbac.js';
import { meshFixture } from './test-fixtures.js';

describe("Patroni's RBAC", () => {
  it('may keep its Endpoints and label its pods, nothing else', () => {
    const { mesh } = meshFixture();
    expect(patroniRole(mesh).rules).toEqual([
      { apiGroups: [''], resources: ['endpoints'], verbs: ['get', 'list', 'watch', 'create', 'patch'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'patch'] },
    ]);
  });

  it('binds the Role to the service account of the PostgreSQL pods, whose token is mounted only where a pod asks', () => {
    const { mesh } = meshFixture();
    expect(patroniServiceAccount(mesh)).toMatchObject({ metadata: { name: 'demo-patroni', namespace: 'team-a' }, automountServiceAccountToken: false });
    expect(patroniRoleBinding(mesh)).toMatchObject({
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'demo-patroni' },
      subjects: [{ kind: 'ServiceAccount', name: 'demo-patroni', namespace: 'team-a' }],
    });
  });

  it('grants nothing the operator does not hold itself', () => {
    const held = operatorClusterRules();
    for (const rule of patroniRules()) {
      for (const resource of rule.resources) {
        for (const verb of rule.verbs) {
          const covered = held.some((h) => h.apiGroups.includes(rule.apiGroups[0] ?? '') && h.resources.includes(resource) && h.verbs.includes(verb));
          expect(covered, `${resource} ${verb}`).toBe(true);
        }
      }
    }
  });
});
