/**
 * The principal cache of KeyAuthenticator (src/auth/key-authenticator.ts), which saves the key-hash
 * lookup on all but one request per key every TTL: a key revoked on another replica (the database
 * changed, this replica not told) stops working once the TTL has passed, never later; each key
 * resolves to its own tenant's principal however the cache is filled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyAuthenticator } from '../../src/auth/key-authenticator.js';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import { createTestDb, type TestDb } from '../support/test-db.js';

const TTL_MS = 5_000;

describe('principal cache', () => {
  let db: TestDb;
  let now = 0;

  beforeAll(async () => {
    db = await createTestDb();
  });
  afterAll(() => db.close());

  const authenticator = (): KeyAuthenticator => new KeyAuthenticator(db, { cacheTtlMs: TTL_MS, now: () => now });

  it('a key revoked by another replica works until the TTL runs out and is refused from then on', async () => {
    const admin = createKeyAdministration(db);
    const created = await admin.createKey({ tenant: 'cache-revoke', agent: 'a' });
    const replica = authenticator();
    now = 1_000;
    expect((await replica.authenticate(created.key)).keyId).toBe(created.key_id);
    // Revoked straight in the database, as the revoking replica does; this replica is not told.
    await admin.revokeKey(created.key_id, 'cache-revoke');
    now = 1_000 + TTL_MS - 1;
    expect((await replica.authenticate(created.key)).keyId).toBe(created.key_id);
    now = 1_000 + TTL_MS;
    await expect(replica.authenticate(created.key)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    now = 1_000 + 10 * TTL_MS;
    await expect(replica.authenticate(created.key)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('forgetKey refuses a cached key at once on the replica that revoked it', async () => {
    const admin = createKeyAdministration(db);
    const created = await admin.createKey({ tenant: 'cache-forget', agent: 'a' });
    const replica = authenticator();
    now = 50_000;
    await replica.authenticate(created.key);
    await admin.revokeKey(created.key_id, 'cache-forget');
    replica.forgetKey(created.key_id);
    await expect(replica.authenticate(created.key)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it("each key resolves to its own tenant's principal, cached or not, and an unknown key is never served from the cache", async () => {
    const admin = createKeyAdministration(db);
    const first = await admin.createKey({ tenant: 'cache-tenant-a', agent: 'same-agent' });
    const second = await admin.createKey({ tenant: 'cache-tenant-b', agent: 'same-agent' });
    const replica = authenticator();
    now = 90_000;
    for (let round = 0; round < 3; round += 1) {
      expect(await replica.authenticate(first.key)).toMatchObject({ tenantId: 'cache-tenant-a', keyId: first.key_id });
      expect(await replica.authenticate(second.key)).toMatchObject({ tenantId: 'cache-tenant-b', keyId: second.key_id });
    }
    // One character off a cached key: another hash, so a lookup, and no such key.
    const altered = `${first.key.slice(0, -1)}${first.key.endsWith('A') ? 'B' : 'A'}`;
    await expect(replica.authenticate(altered)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});
