import type { Message, Part } from '@a2a-js/sdk';
import { Role } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { selectSkill } from './skill-selection.js';

const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const data = (value: unknown): Part => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' });
const message = (parts: Part[], metadata?: Record<string, unknown>): Message => ({
  messageId: 'm',
  contextId: '',
  taskId: '',
  role: Role.ROLE_USER,
  parts,
  metadata,
  extensions: [],
  referenceTaskIds: [],
});

describe('selectSkill', () => {
  it('reads plain text as a recall of that text', () => {
    expect(selectSkill(message([text('what did we decide?')]))).toEqual({ skill: 'recall', input: { query: 'what did we decide?' } });
  });

  it('takes the skill and its arguments from a data part, text filling the main field', () => {
    expect(selectSkill(message([data({ skill: 'recall', query: 'q', k: 3 })]))).toEqual({ skill: 'recall', input: { query: 'q', k: 3 } });
    expect(selectSkill(message([text('note this'), data({ skill: 'remember', salience: 0.9 })]))).toEqual({
      skill: 'remember',
      input: { content: 'note this', cell_type: 'Fact', salience: 0.9 },
    });
    expect(selectSkill(message([text('ignored'), data({ skill: 'remember', content: 'kept', cell_type: 'Decision' })]))).toEqual({
      skill: 'remember',
      input: { content: 'kept', cell_type: 'Decision' },
    });
    expect(selectSkill(message([data({ skill: 'subscribe', after_seq: 4 })]))).toEqual({ skill: 'subscribe', afterSeq: 4 });
    expect(selectSkill(message([data({ skill: 'subscribe' })]))).toEqual({ skill: 'subscribe', afterSeq: undefined });
  });

  it('takes the skill from metadata when no data part names one', () => {
    expect(selectSkill(message([text('x')], { skill: 'remember' }))).toEqual({ skill: 'remember', input: { content: 'x', cell_type: 'Fact' } });
    expect(selectSkill(message([data({ skill: 'remember', content: 'x' })], { skill: 'remember' })).skill).toBe('remember');
  });

  it('refuses what it cannot read, naming the problem', () => {
    expect(() => selectSkill(undefined)).toThrow(/message is required/);
    expect(() => selectSkill(message([data({ skill: 'forget' })]))).toThrow(/one of remember, recall, subscribe/);
    expect(() => selectSkill(message([text('x')], { skill: 7 }))).toThrow(/metadata.skill/);
    expect(() => selectSkill(message([data({ skill: 'recall' })], { skill: 'remember' }))).toThrow(/asks for recall but metadata.skill for remember/);
    expect(() => selectSkill(message([data({}), data({})]))).toThrow(/at most one data part/);
    expect(() => selectSkill(message([data('text')]))).toThrow(/JSON object/);
    expect(() => selectSkill(message([{ content: { $case: 'url', value: 'https://x/a.pdf' }, metadata: undefined, filename: '', mediaType: '' }]))).toThrow(/no files/);
    expect(() => selectSkill(message([data({ skill: 'subscribe', after_seq: 1.5 })]))).toThrow(/after_seq/);
    expect(() => selectSkill(message([data({ skill: 'subscribe', beacon: 'x' })]))).toThrow(/unknown: beacon/);
  });
});
