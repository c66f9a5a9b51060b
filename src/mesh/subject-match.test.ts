import { describe, expect, it } from 'vitest';
import { isValidPublishSubject, isValidSubscribePattern, subjectMatches } from './subject-match.js';

describe('subjectMatches (NATS semantics)', () => {
  it('matches literal subjects token by token', () => {
    expect(subjectMatches('hyphae.t1.beacon.b1', 'hyphae.t1.beacon.b1')).toBe(true);
    expect(subjectMatches('hyphae.t1.beacon.b1', 'hyphae.t1.beacon.b2')).toBe(false);
    expect(subjectMatches('hyphae.t1.beacon', 'hyphae.t1.beacon.b1')).toBe(false);
    expect(subjectMatches('hyphae.t1.beacon.b1.x', 'hyphae.t1.beacon.b1')).toBe(false);
  });

  it("'*' matches exactly one token", () => {
    expect(subjectMatches('hyphae.*.beacon.b1', 'hyphae.t1.beacon.b1')).toBe(true);
    expect(subjectMatches('hyphae.t1.beacon.*', 'hyphae.t1.beacon.b1')).toBe(true);
    expect(subjectMatches('hyphae.t1.beacon.*', 'hyphae.t1.beacon.b1.x')).toBe(false);
    expect(subjectMatches('hyphae.t1.beacon.*', 'hyphae.t1.beacon')).toBe(false);
  });

  it("'>' matches one or more trailing tokens", () => {
    expect(subjectMatches('hyphae.t1.>', 'hyphae.t1.beacon.b1')).toBe(true);
    expect(subjectMatches('hyphae.>', 'hyphae.t1')).toBe(true);
    expect(subjectMatches('hyphae.t1.>', 'hyphae.t1')).toBe(false);
    expect(subjectMatches('hyphae.t2.>', 'hyphae.t1.beacon.b1')).toBe(false);
  });

  it('validates publish subjects and subscription patterns', () => {
    expect(isValidPublishSubject('hyphae.t1.beacon.b1')).toBe(true);
    expect(isValidPublishSubject('hyphae.*.beacon')).toBe(false);
    expect(isValidPublishSubject('hyphae..beacon')).toBe(false);
    expect(isValidSubscribePattern('hyphae.*.beacon.>')).toBe(true);
    expect(isValidSubscribePattern('hyphae.>.beacon')).toBe(false);
  });
});
