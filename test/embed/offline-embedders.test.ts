import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { MiniLmEmbedder } from '../../src/embed/minilm-embedder.js';
import { UseLiteEmbedder } from '../../src/embed/use-lite-embedder.js';

// Every outbound path (http, https, undici's fetch, node-fetch) ends in net.Socket#connect; fetch is caught before DNS.
const attempts: string[] = [];
const originalConnect = net.Socket.prototype.connect;
const originalFetch = globalThis.fetch;
net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]): net.Socket {
  attempts.push(`connect ${JSON.stringify(args[0])}`);
  this.destroy(new Error('network access is forbidden in this test'));
  return this;
} as typeof net.Socket.prototype.connect;
globalThis.fetch = ((input: unknown): Promise<Response> => {
  attempts.push(`fetch ${String(input)}`);
  return Promise.reject(new Error('network access is forbidden in this test'));
}) as typeof fetch;

afterAll(() => {
  net.Socket.prototype.connect = originalConnect;
  globalThis.fetch = originalFetch;
});

describe('the local embedders work offline', () => {
  it.each([
    ['minilm', (): MiniLmEmbedder | UseLiteEmbedder => new MiniLmEmbedder(), 384],
    ['use-lite', (): MiniLmEmbedder | UseLiteEmbedder => new UseLiteEmbedder(), 512],
  ] as const)('%s loads its model from the installed package files and embeds without opening a single connection', async (_kind, make, dimension) => {
    const embedder = make();
    const loadMs = await embedder.warmUp();
    const [vector] = await embedder.embed(['Loaded from the installed packages, not from a model hub']);
    expect(loadMs).toBeGreaterThan(0);
    expect(vector).toHaveLength(dimension);
    expect(attempts).toEqual([]);
  });
});
