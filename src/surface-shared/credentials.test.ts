import { describe, expect, it } from 'vitest';
import { InvalidTokenError } from '../auth/oauth/oauth-errors.js';
import { UnauthenticatedError } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import { MAX_API_KEY_CHARS, apiKeyOf, authenticateCredential, credentialDigest, credentialOf, missingCredentialError } from './credentials.js';

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Every spelling of a base64url segment whose last character carries `unusedBits` bits nothing decodes. */
function spellings(segment: string, unusedBits: number): string[] {
  const last = BASE64URL.indexOf(segment.at(-1) ?? 'A');
  const kept = last & ~((1 << unusedBits) - 1);
  return Array.from({ length: 1 << unusedBits }, (_, i) => `${segment.slice(0, -1)}${BASE64URL[kept | i] ?? ''}`);
}

describe('apiKeyOf', () => {
  it('reads a key, trimmed', () => {
    expect(apiKeyOf('hy_abc')).toBe('hy_abc');
    expect(apiKeyOf(' hy_abc\t')).toBe('hy_abc');
  });

  it.each([undefined, null, '', '   ', 'k'.repeat(MAX_API_KEY_CHARS + 1), ['hy_a', 'hy_b']])('refuses %j', (value) => {
    expect(apiKeyOf(value)).toBeUndefined();
  });
});

describe('credentialOf', () => {
  it('takes the API key first, else a bearer token', () => {
    expect(credentialOf('hy_abc', 'Bearer tok')).toEqual({ kind: 'api-key', key: 'hy_abc' });
    expect(credentialOf(undefined, 'Bearer eyJ.abc.def')).toEqual({ kind: 'bearer', token: 'eyJ.abc.def' });
    expect(credentialOf(null, 'Basic dXNlcg==')).toBeUndefined();
    expect(credentialOf(undefined, ['Bearer a', 'Bearer b'])).toBeUndefined();
    expect(credentialOf(undefined, undefined)).toBeUndefined();
  });

  it('reads a bearer that starts with hy_ as an API key, anything else as an access token', () => {
    expect(credentialOf(undefined, 'Bearer hy_abcdefghijklmnop')).toEqual({ kind: 'api-key', key: 'hy_abcdefghijklmnop' });
    expect(credentialOf(undefined, 'bearer  hy_abcdefghijklmnop ')).toEqual({ kind: 'api-key', key: 'hy_abcdefghijklmnop' });
    expect(credentialOf(undefined, 'Bearer eyJhbGciOiJSUzI1NiJ9.e30.c2ln')).toEqual({ kind: 'bearer', token: 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln' });
    expect(credentialOf(undefined, `Bearer hy_${'k'.repeat(MAX_API_KEY_CHARS)}`)).toBeUndefined();
  });
});

describe('the 401s', () => {
  it('name both ways to send a key, and OAuth only where it is on', () => {
    expect(missingCredentialError().message).toBe('missing credential: send an API key as "x-hyphae-key: <key>" or "Authorization: Bearer <key>"');
    expect(missingCredentialError(true).message).toContain('or an OAuth access token as "Authorization: Bearer <token>"');
  });

  it('say OAuth is off when a token reaches a server without it, and keep an OAuth refusal as it is', async () => {
    const principal = {} as Principal;
    const withoutOAuth = { authenticate: async () => principal, authenticateBearer: async (): Promise<Principal> => Promise.reject(new UnauthenticatedError()) };
    await expect(authenticateCredential(withoutOAuth, { kind: 'bearer', token: 'eyJ.e30.sig' })).rejects.toThrow(/accepts no OAuth access tokens: send an API key as/);
    const refused = new InvalidTokenError('expired');
    const withOAuth = { authenticate: async () => principal, authenticateBearer: async (): Promise<Principal> => Promise.reject(refused) };
    await expect(authenticateCredential(withOAuth, { kind: 'bearer', token: 'eyJ.e30.sig' })).rejects.toBe(refused);
    expect(await authenticateCredential(withOAuth, { kind: 'api-key', key: 'hy_abcdefghijklmnop' })).toBe(principal);
  });
});

describe('credentialDigest', () => {
  it('is stable, short and never the credential itself', () => {
    const key = { kind: 'api-key', key: 'hy_abc' } as const;
    expect(credentialDigest(key)).toBe(credentialDigest({ kind: 'api-key', key: 'hy_abc' }));
    expect(credentialDigest(key)).not.toBe(credentialDigest({ kind: 'api-key', key: 'hy_abd' }));
    expect(credentialDigest(key)).toHaveLength(32);
    expect(credentialDigest(key)).not.toContain('hy_abc');
    expect(credentialDigest({ kind: 'bearer', token: 'eyJ.abc.def' })).not.toContain('eyJ');
  });

  it('gives every spelling of one JWT one digest, and another JWT another', () => {
    // An RS256 signature is 256 bytes: 342 characters, the last carrying 4 bits nothing decodes.
    const signature = Buffer.from(Array.from({ length: 256 }, (_, i) => (i * 37) % 256)).toString('base64url');
    const token = (sig: string): string => `eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.${sig}`;
    const variants = spellings(signature, 4);
    expect(new Set(variants).size).toBe(16);
    const digests = new Set(variants.map((sig) => credentialDigest({ kind: 'bearer', token: token(sig) })));
    expect(digests.size).toBe(1);
    const other = Buffer.from(Array.from({ length: 256 }, (_, i) => (i * 41) % 256)).toString('base64url');
    expect(credentialDigest({ kind: 'bearer', token: token(other) })).not.toBe([...digests][0]);
    // The payload's spellings too: 14 bytes are 19 characters, the last carrying 2 unused bits.
    const payload = Buffer.from('{"sub":"alic"}').toString('base64url');
    const payloads = new Set(spellings(payload, 2).map((p) => credentialDigest({ kind: 'bearer', token: `eyJhbGciOiJSUzI1NiJ9.${p}.${signature}` })));
    expect(payloads.size).toBe(1);
  });
});
