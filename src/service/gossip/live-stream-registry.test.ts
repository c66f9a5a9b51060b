import { describe, expect, it } from 'vitest';
import { InvalidTokenError } from '../../auth/oauth/oauth-errors.js';
import { UnavailableError } from '../../core/errors.js';
import { LiveStreamRegistry } from './live-stream-registry.js';

function registry(now: () => number, revoked: string[] = [], asked: string[][] = [], errors: unknown[] = []): LiveStreamRegistry {
  return new LiveStreamRegistry({
    perKey: 5,
    perProcess: 10,
    revokedAmong: async (keyIds) => {
      asked.push([...keyIds]);
      return keyIds.filter((keyId) => revoked.includes(keyId));
    },
    revocationCheckMs: 60_000,
    onError: (error) => errors.push(error),
    now,
  });
}

const subscription = async (): Promise<{ close(): Promise<void> }> => ({ close: async () => undefined });

describe('LiveStreamRegistry', () => {
  it('ends the streams of a revoked key at the next check', async () => {
    const streams = registry(() => 0, ['key-a']);
    const a = await streams.open('key-a', subscription);
    await streams.open('key-b', subscription);
    await streams.checkRevocations();
    await a.ended;
    expect(streams.openStreams).toBe(1);
    await streams.closeAll();
  });

  it('ends a stream opened with an access token once the token has expired, without asking for its key', async () => {
    let now = 1_000;
    const asked: string[][] = [];
    const streams = registry(() => now, [], asked);
    const token = await streams.open('token-agent', subscription, { expiresAt: 5_000 });
    await streams.open('key-a', subscription);
    await streams.checkRevocations();
    expect(streams.openStreams).toBe(2);
    now = 5_000;
    await streams.checkRevocations();
    await token.ended;
    expect(streams.openStreams).toBe(1);
    expect(asked).toEqual([['key-a'], ['key-a']]);
    await streams.closeAll();
  });

  it('asks again about an introspected token once its answer is due, goes on while it is active and ends once it is revoked', async () => {
    let now = 1_000;
    let active = true;
    const rechecks: number[] = [];
    const streams = registry(() => now);
    const recheck = async (): Promise<number> => {
      rechecks.push(now);
      if (!active) throw new InvalidTokenError('not active');
      return now + 30_000;
    };
    const token = await streams.open('token-agent', subscription, { expiresAt: 31_000, recheck });
    let ended = false;
    void token.ended?.then(() => (ended = true));
    await streams.checkRevocations();
    expect(rechecks).toEqual([]);
    now = 31_000;
    await streams.checkRevocations();
    now = 40_000;
    await streams.checkRevocations();
    expect(rechecks).toEqual([31_000]);
    expect(ended).toBe(false);
    active = false;
    now = 61_000;
    await streams.checkRevocations();
    await token.ended;
    expect(rechecks).toEqual([31_000, 61_000]);
    expect(streams.openStreams).toBe(0);
  });

  it('ends the stream when the token cannot be checked again, and tells the operator why', async () => {
    let now = 0;
    const errors: unknown[] = [];
    const streams = registry(() => now, [], [], errors);
    const unreachable = new UnavailableError('the introspection endpoint could not be reached');
    const token = await streams.open('token-agent', subscription, { expiresAt: 10, recheck: () => Promise.reject(unreachable) });
    now = 10;
    await streams.checkRevocations();
    await token.ended;
    expect(errors).toEqual([unreachable]);
  });
});
