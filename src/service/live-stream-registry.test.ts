import { describe, expect, it } from 'vitest';
import { LiveStreamRegistry } from './live-stream-registry.js';

function registry(now: () => number, revoked: string[] = [], asked: string[][] = []): LiveStreamRegistry {
  return new LiveStreamRegistry({
    perKey: 5,
    perProcess: 10,
    revokedAmong: async (keyIds) => {
      asked.push([...keyIds]);
      return keyIds.filter((keyId) => revoked.includes(keyId));
    },
    revocationCheckMs: 60_000,
    onError: (error) => {
      throw error;
    },
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
    const token = await streams.open('token-agent', subscription, 5_000);
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
});
