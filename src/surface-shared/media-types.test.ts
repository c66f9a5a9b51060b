import { describe, expect, it } from 'vitest';
import { acceptsEventStream, mediaType } from './media-types.js';

describe('mediaType', () => {
  it('drops parameters, spaces and case', () => {
    expect(mediaType(' Application/JSON; charset=utf-8')).toBe('application/json');
    expect(mediaType(undefined)).toBeUndefined();
  });
});

describe('acceptsEventStream', () => {
  it.each([
    ['text/event-stream', true, true],
    ['application/json, TEXT/Event-Stream; q=0.5', true, true],
    [['application/json', 'text/event-stream'], true, true],
    ['text/*', false, true],
    ['*/*', false, true],
    ['application/json', false, false],
    ['', false, false],
    [undefined, false, false],
  ] as const)('%j: %s without wildcards, %s with them', (accept, exact, wildcard) => {
    expect(acceptsEventStream(accept, { wildcards: false })).toBe(exact);
    expect(acceptsEventStream(accept, { wildcards: true })).toBe(wildcard);
  });
});
