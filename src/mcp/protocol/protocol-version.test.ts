import { describe, expect, it } from 'vitest';
import { SUPPORTED_PROTOCOL_VERSIONS, negotiateProtocolVersion, reportsSchemaErrorsAsToolResults } from './protocol-version.js';

describe('negotiateProtocolVersion', () => {
  it.each(SUPPORTED_PROTOCOL_VERSIONS)('echoes %s', (version) => {
    expect(negotiateProtocolVersion(version)).toBe(version);
  });

  it.each([undefined, null, '2024-10-07', '2026-01-01', 20250618, ''])('answers anything else (%s) with the newest', (requested) => {
    expect(negotiateProtocolVersion(requested)).toBe('2025-11-25');
  });

  it('reports schema failures as tool results only from 2025-11-25', () => {
    expect(SUPPORTED_PROTOCOL_VERSIONS.filter(reportsSchemaErrorsAsToolResults)).toEqual(['2025-11-25']);
  });
});
