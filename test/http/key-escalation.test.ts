/**
 * Issue 41, finding 1: authority that cannot grow. Every cell of docs/security.md's table "Who may
 * administer which keys" — each caller role × scope (tenant-wide, one project), as an API key and
 * as an OAuth access token, against each target (a key to mint with wider projects, roles or trust,
 * a key to list, a key to revoke or rotate inside or outside the caller's reach, another tenant's) — over
 * REST, on PGlite and on native PostgreSQL; then the audit's own probe, by key and by a token
 * obtained through the real authorization-code flow.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/core/cell-types.js';
import { loadConfig } from '../../src/core/config.js';
import type { OAuthConfig } from '../../src/core/oauth-config.js';
import { agentTrust } from '../../src/store/agent-trust-repository.js';
import { startAuthorizationServer, type AuthorizationServer } from '../support/authorization-server.js';
import { skipWithoutPostgres } from '../support/real-postgres.js';
import { readKeyAuthorityTable, type KeyAuthorityTable } from './key-authority-table.js';
import { startKeyEscalationServer, type EscalationBackend, type KeyEscalationServer } from './key-escalation-server.js';

const DOC = fileURLToPath(new URL('../../docs/security.md', import.meta.url));
const PUBLIC_URL = 'http://127.0.0.1:8787';
const PROJECTS_CLAIM = 'hyphae_projects';
const TENANT = 'acme';
const OTHER_TENANT = 'globex';
const CALLER_TRUST = 0.8;
const SCOPE_OF_ROLE: Readonly<Record<Role, string>> = { reader: 'hyphae:read', writer: 'hyphae:write', admin: 'hyphae:admin' };

type Scope = '*' | 'p1';
interface CallerSpec {
  readonly role: Role;
  readonly scope: Scope;
}
type Credential = 'key' | 'token';

/** The table's caller columns: which callers each one stands for. */
const CALLER_COLUMNS: Readonly<Record<string, readonly CallerSpec[]>> = {
  'admin, `*`': [{ role: 'admin', scope: '*' }],
  'admin, `p1`': [{ role: 'admin', scope: 'p1' }],
  'writer or reader, `*` or `p1`': [
    { role: 'writer', scope: '*' },
    { role: 'writer', scope: 'p1' },
    { role: 'reader', scope: '*' },
    { role: 'reader', scope: 'p1' },
  ],
};

interface KeySpec {
  readonly tenant?: string;
  readonly roles: Role[];
  readonly projects: string[];
  readonly trust: number;
}
interface MintTarget extends KeySpec {
  /** A key the agent already holds. */
  readonly held?: KeySpec;
}

/** The table's mint targets. */
const MINT_TARGETS: Readonly<Record<string, MintTarget>> = {
  'a key for `p1`, writer, trust 0.8': { roles: ['writer'], projects: ['p1'], trust: 0.8 },
  'a key for `p1`, admin, trust 0.8': { roles: ['admin'], projects: ['p1'], trust: 0.8 },
  'a key for `p1` and `p2`': { roles: ['writer'], projects: ['p1', 'p2'], trust: 0.5 },
  'a key for every project (`*`)': { roles: ['writer'], projects: ['*'], trust: 0.5 },
  'a key for `p1` of trust 0.9': { roles: ['writer'], projects: ['p1'], trust: 0.9 },
  'a key in tenant `globex`': { tenant: OTHER_TENANT, roles: ['writer'], projects: ['p1'], trust: 0.5 },
  'a key of trust 0.5 for an agent holding a `p1` key of trust 0.5': {
    roles: ['writer'],
    projects: ['p1'],
    trust: 0.5,
    held: { roles: ['reader'], projects: ['p1'], trust: 0.5 },
  },
  'a key of trust 0.8 for an agent holding a `p1` key of trust 0.5': {
    roles: ['writer'],
    projects: ['p1'],
    trust: 0.8,
    held: { roles: ['reader'], projects: ['p1'], trust: 0.5 },
  },
  'a key for `p1` for an agent holding a `p2` key': { roles: ['writer'], projects: ['p1'], trust: 0.5, held: { roles: ['reader'], projects: ['p2'], trust: 0.5 } },
};

/** The table's list, revoke and rotate targets (`held`: a key its agent holds besides); null: an id no key has. */
const KEY_TARGETS: Readonly<Record<string, MintTarget | null>> = {
  'a key for `p1` of trust 0.5': { roles: ['writer'], projects: ['p1'], trust: 0.5 },
  'a key for `p2`': { roles: ['writer'], projects: ['p2'], trust: 0.5 },
  'a tenant-wide admin key of trust 0.8': { roles: ['admin'], projects: ['*'], trust: 0.8 },
  'a key for `p1` of trust 0.9': { roles: ['writer'], projects: ['p1'], trust: 0.9 },
  'a key in tenant `globex`': { tenant: OTHER_TENANT, roles: ['writer'], projects: ['p1'], trust: 0.5 },
  'a key id that does not exist': null,
  'a key for `p1` of an agent also holding a `p2` key': { roles: ['writer'], projects: ['p1'], trust: 0.5, held: { roles: ['reader'], projects: ['p2'], trust: 0.5 } },
};

const ANSWERS: Readonly<Record<string, readonly string[]>> = {
  mint: ['201', '403', "201, the agent's trust becomes 0.8"],
  list: ['listed', 'not listed', '403'],
  revoke: ['204', '404', '403'],
  rotate: ['201', '404', '403'],
};

let table: KeyAuthorityTable;
let as: AuthorizationServer;
let oauth: OAuthConfig;

beforeAll(async () => {
  table = await readKeyAuthorityTable(DOC);
  as = await startAuthorizationServer();
  const config = loadConfig({
    HYPHAE_OAUTH_ISSUER: as.issuer,
    HYPHAE_PUBLIC_URL: PUBLIC_URL,
    HYPHAE_OAUTH_ALLOWED_TENANTS: TENANT,
    HYPHAE_OAUTH_PROJECTS_CLAIM: PROJECTS_CLAIM,
  });
  if (config.oauth === undefined) throw new Error('OAuth is not configured');
  oauth = config.oauth;
});
afterAll(async () => as?.close());

describe('the table of docs/security.md', () => {
  it('names every caller role × scope once, only known targets and answers, and every target', () => {
    const callers = table.callerColumns.flatMap((column) => {
      const specs = CALLER_COLUMNS[column];
      if (specs === undefined) throw new Error(`unknown caller column: ${column}`);
      return specs.map((spec) => `${spec.role} ${spec.scope}`);
    });
    expect(callers.sort()).toEqual(['admin *', 'admin p1', 'reader *', 'reader p1', 'writer *', 'writer p1']);
    for (const row of table.rows) {
      const targets = row.operation === 'mint' ? MINT_TARGETS : KEY_TARGETS;
      expect(Object.keys(ANSWERS), row.operation).toContain(row.operation);
      expect(Object.keys(targets), `${row.operation}: ${row.target}`).toContain(row.target);
      for (const answer of row.answers.values()) expect(ANSWERS[row.operation], `${row.operation}: ${row.target}`).toContain(answer);
    }
    const rowsOf = (operation: string): string[] => table.rows.filter((row) => row.operation === operation).map((row) => row.target);
    expect(rowsOf('mint').sort()).toEqual(Object.keys(MINT_TARGETS).sort());
    expect(rowsOf('list').sort()).toEqual(Object.keys(KEY_TARGETS).filter((target) => KEY_TARGETS[target] !== null).sort());
    expect(rowsOf('revoke').sort()).toEqual(Object.keys(KEY_TARGETS).sort());
    expect(rowsOf('rotate').sort()).toEqual(Object.keys(KEY_TARGETS).sort());
  });
});

const BACKENDS: readonly { backend: EscalationBackend; skip: boolean }[] = [
  { backend: 'pglite', skip: false },
  { backend: 'postgres', skip: skipWithoutPostgres() },
];

describe.each(BACKENDS)('who may administer which keys, over REST on $backend', { timeout: 300_000 }, ({ backend, skip }) => {
  let server: KeyEscalationServer;
  let sequence = 0;
  const fresh = (prefix: string): string => `${prefix}-${(sequence += 1)}`;

  beforeAll(async () => {
    if (skip) return;
    server = await startKeyEscalationServer(backend, oauth);
  }, 120_000);
  afterAll(async () => server?.close());

  const send = async (credential: string, method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown): Promise<LightMyRequestResponse> => {
    const auth = credential.startsWith('hy_') ? { 'x-hyphae-key': credential } : { authorization: `Bearer ${credential}` };
    return server.app.inject({
      method,
      url,
      headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  };
  const mintFixture = async (agent: string, spec: KeySpec): Promise<{ key: string; key_id: string }> => {
    const { tenant = TENANT, roles, projects, trust } = spec;
    return server.keyAdmin.createKey({ tenant, agent, roles, projects, trust });
  };
  const activeKeysOf = async (tenant: string, agent: string): Promise<number> =>
    (await server.keyAdmin.listKeys(tenant)).filter((k) => k.agent === agent && k.revoked_at === null).length;

  /** The caller's credential: its own key, or a token with its scope and projects for an agent holding a key of the callers' trust. */
  const callerCredential = async (caller: CallerSpec, credential: Credential): Promise<string> => {
    const agent = fresh(`${caller.role}-${caller.scope === '*' ? 'all' : caller.scope}-${credential}`);
    const minted = await mintFixture(agent, { roles: [caller.role], projects: [caller.scope], trust: CALLER_TRUST });
    if (credential === 'key') return minted.key;
    return as.mint(as.accessTokenClaims(PUBLIC_URL, { sub: agent, hyphae_tenant: TENANT, scope: SCOPE_OF_ROLE[caller.role], [PROJECTS_CLAIM]: [caller.scope] }));
  };

  const runMint = async (credential: string, target: MintTarget, answer: string, where: string): Promise<void> => {
    const tenant = target.tenant ?? TENANT;
    const agent = fresh('minted');
    if (target.held !== undefined) await mintFixture(agent, target.held);
    const before = await agentTrust(server.db, tenant, agent);
    const heldKeys = await activeKeysOf(tenant, agent);
    const response = await send(credential, 'POST', '/v1/admin/keys', { tenant, agent, roles: target.roles, projects: target.projects, trust: target.trust });
    if (answer === '403') {
      expect(response.statusCode, `${where}: ${response.body}`).toBe(403);
      expect(response.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
      // Nothing was written: no new key, the agent's trust as it was.
      expect(await activeKeysOf(tenant, agent), where).toBe(heldKeys);
      expect(await agentTrust(server.db, tenant, agent), where).toBe(before);
      return;
    }
    expect(response.statusCode, `${where}: ${response.body}`).toBe(201);
    const created = response.json() as { key: string };
    const me = await send(created.key, 'GET', '/v1/me');
    expect(me.json(), where).toMatchObject({ tenant, agent, roles: target.roles, projects: target.projects, trust: expect.closeTo(target.trust, 6) });
    const expectedTrust = answer === '201' ? (before ?? target.trust) : 0.8;
    expect(await agentTrust(server.db, tenant, agent), where).toBeCloseTo(expectedTrust, 6);
  };

  /** A list, revoke or rotate target: a key of a fresh agent, after the key its agent holds besides. */
  const targetKey = async (prefix: string, target: MintTarget): Promise<{ key: string; key_id: string; agent: string }> => {
    const agent = fresh(prefix);
    if (target.held !== undefined) await mintFixture(agent, target.held);
    return { ...(await mintFixture(agent, target)), agent };
  };

  const runList = async (credential: string, target: MintTarget, answer: string, where: string): Promise<void> => {
    const key = await targetKey('listed', target);
    const response = await send(credential, 'GET', '/v1/admin/keys');
    if (answer === '403') {
      expect(response.statusCode, where).toBe(403);
      return;
    }
    expect(response.statusCode, where).toBe(200);
    const ids = (response.json() as { keys: { key_id: string }[] }).keys.map((k) => k.key_id);
    expect(ids.includes(key.key_id), where).toBe(answer === 'listed');
  };

  const runRevoke = async (credential: string, target: MintTarget | null, answer: string, where: string): Promise<void> => {
    const key = target === null ? null : await targetKey('revoked', target);
    const id = key?.key_id ?? randomUUID();
    const response = await send(credential, 'DELETE', `/v1/admin/keys/${id}`);
    expect(response.statusCode, `${where}: ${response.body}`).toBe(Number(answer));
    if (answer === '404') {
      // Exactly what a key that never existed answers: no existence oracle.
      const missing = randomUUID();
      const absent = await send(credential, 'DELETE', `/v1/admin/keys/${missing}`);
      expect(response.body.replaceAll(id, '<id>'), where).toBe(absent.body.replaceAll(missing, '<id>'));
    }
    if (key !== null) expect((await send(key.key, 'GET', '/v1/me')).statusCode, where).toBe(answer === '204' ? 401 : 200);
  };

  const runRotate = async (credential: string, target: MintTarget | null, answer: string, where: string): Promise<void> => {
    const key = target === null ? null : await targetKey('rotated', target);
    const tenant = target?.tenant ?? TENANT;
    const id = key?.key_id ?? randomUUID();
    const before = key === null ? 0 : await activeKeysOf(tenant, key.agent);
    const response = await send(credential, 'POST', `/v1/admin/keys/${id}/rotate`);
    expect(response.statusCode, `${where}: ${response.body}`).toBe(Number(answer));
    if (answer === '404') {
      const missing = randomUUID();
      const absent = await send(credential, 'POST', `/v1/admin/keys/${missing}/rotate`);
      expect(response.body.replaceAll(id, '<id>'), where).toBe(absent.body.replaceAll(missing, '<id>'));
    }
    if (key === null || target === null) return;
    if (answer !== '201') {
      expect((await send(key.key, 'GET', '/v1/me')).statusCode, where).toBe(200);
      expect(await activeKeysOf(tenant, key.agent), where).toBe(before);
      return;
    }
    // The replacement has the old key's attributes; the old key is refused at once.
    const replacement = response.json() as { key: string; key_id: string };
    expect(replacement.key_id).not.toBe(key.key_id);
    const me = await send(replacement.key, 'GET', '/v1/me');
    expect(me.json(), where).toMatchObject({ tenant, agent: key.agent, roles: target.roles, projects: target.projects, trust: expect.closeTo(target.trust, 6) });
    expect((await send(key.key, 'GET', '/v1/me')).statusCode, where).toBe(401);
    expect(await activeKeysOf(tenant, key.agent), where).toBe(before);
  };

  it.skipIf(skip)('answers every cell of the table, by key and by token', async () => {
    let cells = 0;
    for (const row of table.rows) {
      for (const [column, answer] of row.answers) {
        for (const caller of CALLER_COLUMNS[column] ?? []) {
          for (const kind of ['key', 'token'] as const) {
            const where = `${row.operation} ${row.target} by ${caller.role} ${caller.scope} (${kind})`;
            const credential = await callerCredential(caller, kind);
            if (row.operation === 'mint') await runMint(credential, MINT_TARGETS[row.target] as MintTarget, answer, where);
            else if (row.operation === 'list') await runList(credential, KEY_TARGETS[row.target] as MintTarget, answer, where);
            else if (row.operation === 'revoke') await runRevoke(credential, KEY_TARGETS[row.target] ?? null, answer, where);
            else await runRotate(credential, KEY_TARGETS[row.target] ?? null, answer, where);
            cells += 1;
          }
        }
      }
    }
    expect(cells).toBe(table.rows.length * 6 * 2);
  });

  it.skipIf(skip)("stops the audit's probe: a project admin neither mints itself the tenant, nor revokes the tenant's admin, nor raises an agent", async () => {
    const wide = await mintFixture(fresh('root'), { roles: ['admin'], projects: ['*'], trust: 1 });
    const scoped = await mintFixture(fresh('p1-admin'), { roles: ['admin'], projects: ['p1'], trust: 0.8 });
    const p2Writer = await mintFixture(fresh('p2-writer'), { roles: ['writer'], projects: ['p2'], trust: 0.5 });
    const stored = await send(p2Writer.key, 'POST', '/v1/cells', { content: 'the p2 launch date is secret', cell_type: 'Fact' });
    expect(stored.statusCode, stored.body).toBe(201);
    expect((await send(scoped.key, 'GET', '/v1/admin/export?project=p2')).statusCode).toBe(403);

    const escalated = fresh('escalated');
    const minted = await send(scoped.key, 'POST', '/v1/admin/keys', { tenant: TENANT, agent: escalated, projects: ['*'], roles: ['admin'], trust: 1 });
    expect(minted.statusCode).toBe(403);
    expect(minted.json()).toMatchObject({ error: { code: 'FORBIDDEN', details: { exceeds: 'projects' } } });
    expect(await activeKeysOf(TENANT, escalated)).toBe(0);

    expect((await send(scoped.key, 'DELETE', `/v1/admin/keys/${wide.key_id}`)).statusCode).toBe(404);
    expect((await send(wide.key, 'GET', '/v1/me')).statusCode).toBe(200);
    const listed = (await send(scoped.key, 'GET', '/v1/admin/keys')).json() as { keys: { key_id: string }[] };
    expect(listed.keys.map((k) => k.key_id)).toContain(scoped.key_id);
    expect(listed.keys.map((k) => k.key_id)).not.toContain(wide.key_id);

    const bob = fresh('bob');
    await mintFixture(bob, { roles: ['writer'], projects: ['p1'], trust: 0.3 });
    const raised = await send(scoped.key, 'POST', '/v1/admin/keys', { tenant: TENANT, agent: bob, projects: ['p1'], roles: ['writer'], trust: 0.8 });
    expect(raised.json()).toMatchObject({ error: { code: 'FORBIDDEN', details: { exceeds: 'agent_trust' } } });
    expect(await agentTrust(server.db, TENANT, bob)).toBeCloseTo(0.3, 6);
  });

  it.skipIf(skip)('rotates a key once: the replacement is live, the old key and a second rotation of it are refused', async () => {
    const admin = await mintFixture(fresh('root'), { roles: ['admin'], projects: ['*'], trust: 1 });
    const old = await mintFixture(fresh('rotating'), { roles: ['writer'], projects: ['p1', 'p2'], trust: 0.6 });
    const rotated = await send(admin.key, 'POST', `/v1/admin/keys/${old.key_id}/rotate`);
    expect(rotated.statusCode, rotated.body).toBe(201);
    expect(rotated.json()).toMatchObject({ projects: ['p1', 'p2'], default_project: 'p1', revoked_at: null });
    const again = await send(admin.key, 'POST', `/v1/admin/keys/${old.key_id}/rotate`);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: { code: 'CONFLICT' } });
    expect((await send(admin.key, 'POST', '/v1/admin/keys/not-a-uuid/rotate')).statusCode).toBe(400);
  });

  it.skipIf(skip)('holds for a token with hyphae:admin and a projects claim from the authorization-code flow', async () => {
    const agent = fresh('p1-admin-oauth');
    await mintFixture(agent, { roles: ['reader'], projects: ['p1'], trust: 0.8 });
    const wide = await mintFixture(fresh('root'), { roles: ['admin'], projects: ['*'], trust: 0.8 });
    const inScope = await mintFixture(fresh('p1-writer'), { roles: ['writer'], projects: ['p1'], trust: 0.5 });
    as.signInAs = { sub: agent, claims: { hyphae_tenant: TENANT, [PROJECTS_CLAIM]: ['p1'] } };
    const { accessToken } = await as.obtainAccessToken({ resource: PUBLIC_URL, scope: 'hyphae:admin' });
    expect((await send(accessToken, 'GET', '/v1/me')).json()).toMatchObject({ agent, roles: ['admin'], projects: ['p1'], trust: expect.closeTo(0.8, 6) });

    const minted = await send(accessToken, 'POST', '/v1/admin/keys', { tenant: TENANT, agent: fresh('escalated'), projects: ['*'], roles: ['admin'], trust: 0.8 });
    expect(minted.statusCode).toBe(403);
    const ids = ((await send(accessToken, 'GET', '/v1/admin/keys')).json() as { keys: { key_id: string }[] }).keys.map((k) => k.key_id);
    expect(ids).toContain(inScope.key_id);
    expect(ids).not.toContain(wide.key_id);
    expect((await send(accessToken, 'DELETE', `/v1/admin/keys/${wide.key_id}`)).statusCode).toBe(404);
    expect((await send(accessToken, 'DELETE', `/v1/admin/keys/${inScope.key_id}`)).statusCode).toBe(204);
  });
});
