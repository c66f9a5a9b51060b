import { describe, expect, it } from 'vitest';
import { identifierTokens } from './identifier-tokens.js';

describe('identifierTokens', () => {
  it('finds codes, ticket ids, paths, versions and code names, lower-cased, once each', () => {
    expect(identifierTokens('ERR_CONN_RESET and E4012 (see PLAT-2291, CVE-2024-3094); ERR_CONN_RESET again.')).toEqual([
      'cve-2024-3094',
      'e4012',
      'err_conn_reset',
      'plat-2291',
    ]);
    expect(identifierTokens('src/billing/retry-policy.ts and charts/api/values.yaml.')).toEqual([
      'charts/api/values.yaml',
      'retry-policy.ts',
      'src/billing/retry-policy.ts',
      'values.yaml',
    ]);
    expect(identifierTokens('pgbouncer 1.21.0, v2.3 and orders.v3.created, 99.9% uptime')).toEqual(['1.21.0', '99.9', 'orders.v3.created', 'v2.3']);
    expect(identifierTokens('OrderReconciler calls useSessionRefresh; customer_tier, X-Tenant-Route and #inc-payments.')).toEqual([
      '#inc-payments',
      'customer_tier',
      'orderreconciler',
      'usesessionrefresh',
      'x-tenant-route',
    ]);
  });

  it('leaves plain words, capitalised words, acronyms, numbers and sentence punctuation alone', () => {
    expect(identifierTokens('The Payments API retries 3 times, e.g. after a timeout: Falcon said so.')).toEqual([]);
    expect(identifierTokens('blue-green deploys, TLS and café/bar')).toEqual([]);
  });
});
