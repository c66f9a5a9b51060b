import { describe, expect, it } from 'vitest';
import { restatementContrast } from './restatement-contrast.js';

describe('restatementContrast', () => {
  it('sees a changed number, in digits or in words', () => {
    expect(restatementContrast('The Android build requires JDK 17.', 'The Android build requires JDK 21.')).toBe('number');
    expect(restatementContrast('Deploys run at 2am.', 'Deploys run at 6am.')).toBe('number');
    expect(restatementContrast('The search times out after three seconds.', 'The search times out after thirty seconds.')).toBe('number');
  });

  it('sees a negation on one side only', () => {
    expect(restatementContrast('API keys are rotated.', 'API keys are never rotated.')).toBe('negation');
    expect(restatementContrast('Merging needs an approval.', "Merging doesn't need an approval.")).toBe('negation');
  });

  it('lets a rewording through: the same numbers however written, negated on both sides or neither', () => {
    expect(restatementContrast('API keys are rotated every ninety days.', 'We rotate API keys every 90 days.')).toBeNull();
    expect(restatementContrast('Our SLA promises 99.9% uptime.', 'The SLA guarantees 99.9 percent uptime.')).toBeNull();
    expect(restatementContrast('Never restart the config service.', 'The config service must never be restarted.')).toBeNull();
    expect(restatementContrast('User sessions are stored in PostgreSQL.', 'We keep user sessions in PostgreSQL.')).toBeNull();
  });

  it('sees another subject (restatement-subjects.ts) once numbers and negation agree', () => {
    expect(restatementContrast('Falcon chose Envoy over Nginx for the GraphQL gateway.', 'Harbor chose Envoy over Nginx for the GraphQL gateway.')).toBe('name');
  });

  it('sees another claim about the same subject: each side says two content words or more the other lacks', () => {
    const subject = 'the nightly export job to the data warehouse';
    expect(restatementContrast(`${subject} failed twice this week`, `${subject} now runs an hour later`)).toBe('predicate');
    expect(restatementContrast('Webhooks are retried five times with exponential backoff.', 'Failed webhooks get five retries with exponential backoff.')).toBeNull();
    expect(restatementContrast('We are splitting the monolith into services.', 'The monolith is split into services.')).toBeNull();
  });
});
