/**
 * Failed authentication is limited per client address before any database work: made-up keys
 * each get a fresh bucket in the per-key limiter, so only the address can hold them back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FailedAuthLimiter } from '../../src/surface-shared/index.js';
import type { MintedKey } from '../support/test-runtime.js';
import { createHttpTestApp, type HttpTestApp } from '../support/http/http-test-app.js';

let t: HttpTestApp;
let key: MintedKey;
const MAX = 5;

beforeAll(async () => {
  t = await createHttpTestApp({ config: { failedAuthPerMinute: MAX, rateLimitPerMinute: 10_000 }, logLevel: 'silent' });
  key = await t.runtime.mintKey({ tenant: 'guess', agent: 'real' });
});
afterAll(async () => t?.close());

describe('failed authentication per client address', () => {
  it('650 made-up keys from one address: the first few are 401, every other one 429 with Retry-After, on REST and /mcp', async () => {
    const statuses = new Map<number, number>();
    for (let i = 0; i < 650; i++) {
      const response =
        i % 2 === 0
          ? await t.app.inject({ method: 'GET', url: '/v1/cells', remoteAddress: '10.9.9.9', headers: { 'x-hyphae-key': `hy_made-up-${i}` } })
          : await t.app.inject({
              method: 'POST',
              url: '/mcp',
              remoteAddress: '10.9.9.9',
              headers: { 'x-hyphae-key': `hy_made-up-${i}`, 'content-type': 'application/json', accept: 'application/json' },
              payload: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
            });
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      if (response.statusCode === 429) expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 401: MAX, 429: 650 - MAX });
  });

  it('a blocked address is refused before authentication, even with a real key; other addresses are not affected', async () => {
    const blocked = await t.app.inject({ method: 'GET', url: '/v1/cells', remoteAddress: '10.9.9.9', headers: { 'x-hyphae-key': key.key } });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error.code).toBe('RATE_LIMITED');
    const elsewhere = await t.app.inject({ method: 'GET', url: '/v1/cells', remoteAddress: '10.8.8.8', headers: { 'x-hyphae-key': key.key } });
    expect(elsewhere.statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/healthz', remoteAddress: '10.9.9.9' })).statusCode).toBe(200);
  });

  it('forgets an address after its window and bounds how many it remembers', () => {
    let now = 0;
    const limiter = new FailedAuthLimiter({ max: 2, windowMs: 1_000, maxAddresses: 3, clock: () => now });
    limiter.recordFailure('a');
    expect(limiter.retryAfterSeconds('a')).toBeNull();
    limiter.recordFailure('a');
    expect(limiter.retryAfterSeconds('a')).toBe(1);
    now = 1_000;
    expect(limiter.retryAfterSeconds('a')).toBeNull();
    for (const address of ['b', 'c', 'd']) {
      limiter.recordFailure(address);
      limiter.recordFailure(address);
    }
    limiter.recordFailure('e');
    expect(limiter.retryAfterSeconds('b')).toBeNull();
    expect(limiter.retryAfterSeconds('d')).toBe(1);
  });
});
