import { describe, expect, it } from 'vitest';
import { subjectsContrast } from './restatement-subjects.js';

describe('subjectsContrast', () => {
  it('sees another name, inside a sentence or as an acronym', () => {
    expect(subjectsContrast('The Atlas team owns the notification service.', 'The Orion team owns the notification service.')).toBe('name');
    expect(subjectsContrast('Stripe handles card payments.', 'Stripe and Adyen handle card payments.')).toBe('name');
    expect(subjectsContrast('Backups are encrypted with KMS keys.', 'Backups are encrypted with HSM keys.')).toBe('name');
  });

  it('sees a swapped name at the start of both sentences, but not a reworded opening', () => {
    expect(subjectsContrast('Falcon chose Envoy over Nginx for the GraphQL gateway.', 'Harbor chose Envoy over Nginx for the GraphQL gateway.')).toBe('name');
    expect(subjectsContrast('Priya prefers asynchronous reviews.', 'Marco prefers asynchronous reviews.')).toBe('name');
    expect(subjectsContrast('Failed webhooks get five retries with exponential backoff.', 'Webhooks are retried five times with exponential backoff.')).toBeNull();
  });

  it('sees another identifier', () => {
    expect(subjectsContrast('Billing error E4012 means the card was declined.', 'Billing error E4021 means the card was declined.')).toBe('identifier');
    expect(subjectsContrast('src/billing/retry-policy.ts is generated.', 'src/billing/refund-policy.ts is generated.')).toBe('identifier');
    expect(subjectsContrast('The customer_tier column is nullable.', 'The customer_region column is nullable.')).toBe('identifier');
  });

  it('sees one run of content words swapped in an otherwise identical sentence', () => {
    expect(subjectsContrast('The ledger service ran out of database connections during the peak.', 'The inventory service ran out of database connections during the peak.')).toBe(
      'swapped-words',
    );
    expect(subjectsContrast('The payments team moved its queues from RabbitMQ to Kafka.', 'The logistics team moved its queues from RabbitMQ to Kafka.')).toBe('swapped-words');
  });

  it('lets rewordings through', () => {
    expect(subjectsContrast('User sessions are stored in PostgreSQL.', 'We keep user sessions in PostgreSQL.')).toBeNull();
    expect(subjectsContrast('We chose Kafka over RabbitMQ because we need to replay old events.', 'Kafka was picked instead of RabbitMQ since we must be able to replay past events.')).toBeNull();
    expect(subjectsContrast('The VPN is required to reach internal dashboards.', 'Internal dashboards can only be reached through the VPN.')).toBeNull();
    expect(subjectsContrast('Only iOS 16 or newer is supported by the mobile app.', 'The mobile app supports iOS 16 and later only.')).toBeNull();
    expect(subjectsContrast('Logs are retained for thirty days and then deleted.', 'Logs are kept for 30 days, after which they are deleted.')).toBeNull();
  });
});
