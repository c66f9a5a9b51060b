import { describe, expect, it } from 'vitest';
import { isLoopbackHostname, isSecureOrLoopbackUrl } from './secure-url.js';

describe('secure or loopback URLs', () => {
  it('accept https anywhere and http on loopback only', () => {
    for (const url of ['https://id.example.com', 'http://127.0.0.1:9000/x', 'http://localhost:8080', 'http://[::1]:80', 'http://a.localhost']) {
      expect(isSecureOrLoopbackUrl(url), url).toBe(true);
    }
    for (const url of ['http://id.example.com', 'http://10.0.0.1', 'http://127.0.0.1.example.com', 'ftp://127.0.0.1', 'not a url', 'http://[::2]']) {
      expect(isSecureOrLoopbackUrl(url), url).toBe(false);
    }
  });

  it('know the loopback names', () => {
    expect(['localhost', '127.8.9.1', '::1', '[::1]', 'LOCALHOST'].every(isLoopbackHostname)).toBe(true);
    expect(['example.com', '128.0.0.1', '::2', 'localhost.example.com'].some(isLoopbackHostname)).toBe(false);
  });
});
