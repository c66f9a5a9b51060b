import { describe, expect, it } from 'vitest';
import { createHostAllowlist, hostnameOf, isLoopbackHost } from './host-allowlist.js';

describe('hostnameOf', () => {
  it('drops the port, lower-cases and unwraps IPv6 brackets', () => {
    expect(hostnameOf('Example.COM:8787')).toBe('example.com');
    expect(hostnameOf('[::1]:8787')).toBe('::1');
    expect(hostnameOf('[::1]')).toBe('::1');
    expect(hostnameOf('127.0.0.1')).toBe('127.0.0.1');
    expect(hostnameOf('example.com.')).toBe('example.com');
  });

  it('refuses malformed values', () => {
    for (const bad of [undefined, '', '[::1', '[nothex]:80', 'a b', 'host:port', 'host:123456', '[::1]x', 'évil.com']) {
      expect(hostnameOf(bad)).toBeNull();
    }
  });
});

describe('createHostAllowlist', () => {
  it('always allows loopback names and addresses', () => {
    const allowed = createHostAllowlist([]);
    for (const host of ['localhost', 'localhost:8787', '127.0.0.1:8787', '127.1.2.3', '[::1]:8787', 'app.localhost']) {
      expect(allowed(host)).toBe(true);
    }
    expect(allowed('evil.example:8787')).toBe(false);
    expect(allowed('10.0.0.1')).toBe(false);
    expect(allowed(undefined)).toBe(false);
  });

  it('adds the configured names, ignoring their ports, and *.suffix patterns', () => {
    const allowed = createHostAllowlist(['Hyphae.Example.com', 'api.internal:443', '*.svc.cluster.local', '[fd00::1]']);
    expect(allowed('hyphae.example.com')).toBe(true);
    expect(allowed('hyphae.example.com:9999')).toBe(true);
    expect(allowed('api.internal')).toBe(true);
    expect(allowed('hyphae.ns.svc.cluster.local:8787')).toBe(true);
    expect(allowed('svc.cluster.local')).toBe(false);
    expect(allowed('[fd00::1]:8787')).toBe(true);
    expect(allowed('example.com')).toBe(false);
  });

  it('accepts any well-formed host with *', () => {
    const allowed = createHostAllowlist(['*']);
    expect(allowed('anything.example')).toBe(true);
    expect(allowed('[::1')).toBe(false);
  });
});

describe('isLoopbackHost', () => {
  it('knows loopback from the rest', () => {
    expect(isLoopbackHost('::1')).toBe(true);
    expect(isLoopbackHost('128.0.0.1')).toBe(false);
    expect(isLoopbackHost('localhost.evil.com')).toBe(false);
  });
});
