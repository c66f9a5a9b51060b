import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, isStorableText, isStorableTimestamp, jsonValueProblem } from './text-rules.js';

describe('isStorableText', () => {
  it('accepts ordinary text, emoji (paired surrogates) and the empty string', () => {
    for (const text of ['', 'plain', 'é', '😀 and 𝄞', '\u0001\uffff']) expect(isStorableText(text), text).toBe(true);
  });
  it('refuses NUL and unpaired surrogates anywhere', () => {
    for (const text of ['\u0000', 'a\u0000', '\ud800', 'a\ud83d', '\udc00a', '\udc00\ud800', '😀\udfff']) expect(isStorableText(text), JSON.stringify(text)).toBe(false);
  });
});

describe('jsonValueProblem', () => {
  it('accepts JSON up to the depth limit', () => {
    let value: unknown = 'leaf';
    for (let i = 0; i < MAX_JSON_DEPTH; i++) value = [value];
    expect(jsonValueProblem(value)).toBeNull();
    expect(jsonValueProblem({ a: [1, { b: 'c' }], d: null })).toBeNull();
  });
  it('refuses one level deeper, and 100,000 levels without overflowing the stack', () => {
    let value: unknown = 1;
    for (let i = 0; i <= MAX_JSON_DEPTH; i++) value = { a: value };
    expect(jsonValueProblem(value)).toMatch(/deeper/);
    let deep: unknown = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(jsonValueProblem(deep)).toMatch(/deeper/);
  });
  it('refuses NUL or lone surrogates in keys and in nested strings', () => {
    expect(jsonValueProblem({ 'k\u0000': 1 })).toMatch(/key/);
    expect(jsonValueProblem({ a: [{ b: 'x\ud800' }] })).toMatch(/string/);
  });
});

describe('isStorableTimestamp', () => {
  it('accepts real instants in years 1–9999 with offsets up to ±15:59', () => {
    for (const t of ['0001-01-01T00:00:00Z', '2024-02-29T23:59:59.999999Z', '9999-12-31T23:59:59+15:59', '2000-02-29T00:00:00-15:59']) {
      expect(isStorableTimestamp(t), t).toBe(true);
    }
  });
  it('refuses impossible dates, times and offsets', () => {
    for (const t of ['0000-01-01T00:00:00Z', '2024-13-01T00:00:00Z', '2024-00-10T00:00:00Z', '2023-02-29T00:00:00Z', '1900-02-29T00:00:00Z',
      '2024-04-31T00:00:00Z', '2024-01-01T24:00:00Z', '2024-01-01T00:60:00Z', '2024-01-01T00:00:60Z', '2024-01-01T00:00:00+16:00',
      '2024-01-01T00:00:00+15:60', '2024-01-01', 'not a date']) {
      expect(isStorableTimestamp(t), t).toBe(false);
    }
  });
});
