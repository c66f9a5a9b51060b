import { describe, expect, it } from 'vitest';
import { createOriginAllowlist, normaliseOrigin } from './origin-policy.js';

describe('origin allowlist', () => {
  it('normalises scheme, case and default ports', () => {
    expect(normaliseOrigin('HTTPS://App.Example.com:443')).toBe('https://app.example.com');
    expect(normaliseOrigin('http://localhost:3000')).toBe('http://localhost:3000');
    expect(normaliseOrigin('null')).toBeNull();
    expect(normaliseOrigin('file:///x')).toBeNull();
  });

  it('allows only listed origins', () => {
    const allowed = createOriginAllowlist(['https://app.example.com', 'http://localhost:3000']);
    expect(allowed('https://app.example.com')).toBe(true);
    expect(allowed('https://app.example.com:443')).toBe(true);
    expect(allowed('http://app.example.com')).toBe(false);
    expect(allowed('http://localhost:3001')).toBe(false);
    expect(allowed('null')).toBe(false);
    expect(createOriginAllowlist([])('https://app.example.com')).toBe(false);
  });
});
