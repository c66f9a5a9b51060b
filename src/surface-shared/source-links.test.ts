import { describe, expect, it } from 'vitest';
import type { Principal } from '../core/principal.js';
import { createSourceLinkKey } from './source-links.js';

const principal: Principal = { tenantId: 't', agent: 'a', keyId: 'k', roles: ['writer'], projects: ['*'], defaultProject: 'p', trust: 0.9 };
const slice = { project: 'p', sourceId: 's', offset: 0, limit: 100 };
const tokenOf = (url: string): string => new URL(url).searchParams.get('link') ?? '';

describe('signed source links', () => {
  it('make a reader of the signed project only, until they expire', () => {
    let now = 1_000_000_000_000;
    const key = createSourceLinkKey('x'.repeat(32), () => now);
    const link = key.url('http://127.0.0.1:8787', principal, slice, 60);
    expect(link.expires_at).toBe(new Date(now + 60_000).toISOString());
    expect(key.reader(tokenOf(link.url), slice)).toEqual({ tenantId: 't', agent: 'a', keyId: 'source-link', roles: ['reader'], projects: ['p'], defaultProject: 'p', trust: 0 });
    now += 60_000;
    expect(() => key.reader(tokenOf(link.url), slice)).toThrow(/expired/);
  });

  it('are refused for another slice, under another secret, or altered', () => {
    const key = createSourceLinkKey('x'.repeat(32));
    const token = tokenOf(key.url('http://h', principal, slice, 60).url);
    for (const other of [{ ...slice, limit: 101 }, { ...slice, offset: 1 }, { ...slice, sourceId: 't' }, { ...slice, project: 'q' }]) {
      expect(() => key.reader(token, other)).toThrow(/not valid/);
    }
    expect(() => createSourceLinkKey('y'.repeat(32)).reader(token, slice)).toThrow(/not valid/);
    expect(() => createSourceLinkKey(undefined).reader(token, slice)).toThrow(/not valid/);
    const [payload, signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()), limit: 20000 })).toString('base64url');
    expect(() => key.reader(`${forged}.${signature}`, { ...slice, limit: 20000 })).toThrow(/not valid/);
    expect(() => key.reader(`${token}.extra`, slice)).toThrow(/not valid/);
  });
});
