import { describe, expect, it } from 'vitest';
import { generatePassword, passwordFromSecret, postgresSecret } from './postgres-secret.js';
import { meshFixture } from './test-fixtures.js';

describe('postgresSecret', () => {
  it('holds a URL to the managed service and round-trips the password', () => {
    const { mesh } = meshFixture();
    const pw = generatePassword();
    const s = postgresSecret(mesh, pw);
    const url = Buffer.from((s.data as Record<string, string>).url ?? '', 'base64').toString();
    expect(url).toBe(`postgres://hyphae:${pw}@demo-postgres.team-a.svc:5432/hyphae`);
    expect(passwordFromSecret(s)).toBe(pw);
    expect(passwordFromSecret(undefined)).toBeUndefined();
    expect(generatePassword()).not.toBe(pw);
  });
});
