import { describe, expect, it } from 'vitest';
import { Teardown } from './teardown.js';

describe('Teardown', () => {
  it('closes the last opened first, runs every step past a failure, and rethrows the first failure', async () => {
    const closed: string[] = [];
    const teardown = new Teardown();
    teardown.add(async () => void closed.push('database'));
    teardown.add(async () => {
      closed.push('embedder');
      throw new Error('embedder failed to close');
    });
    teardown.add(async () => {
      closed.push('bus');
      throw new Error('bus failed to close');
    });
    await expect(teardown.run()).rejects.toThrow('bus failed to close');
    expect(closed).toEqual(['bus', 'embedder', 'database']);
    await teardown.run();
    expect(closed).toHaveLength(3);
  });

  it('abandons a failed start without masking its error', async () => {
    const teardown = new Teardown();
    teardown.add(async () => {
      throw new Error('close failed');
    });
    await expect(teardown.abandon()).resolves.toBeUndefined();
  });
});
