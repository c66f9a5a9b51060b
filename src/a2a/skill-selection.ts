/**
 * How one A2A message selects a Hyphae skill and its arguments (docs/a2a.md):
 *   - a data part `{ "skill": "...", ...arguments }`, or `message.metadata.skill`, names the skill;
 *   - plain text alone is a recall (reading has no side effect; writing is always asked for);
 *   - text fills the skill's main field when the data part leaves it out: remember's `content`,
 *     recall's `query`; remember's `cell_type` defaults to `Fact`.
 * Arguments are otherwise passed as they are: the facade validates them like every surface's.
 */
import type { Message } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';

export const SKILLS = ['remember', 'recall', 'subscribe'] as const;
export type SkillId = (typeof SKILLS)[number];

export type SkillCall =
  | { readonly skill: 'remember'; readonly input: Record<string, unknown> }
  | { readonly skill: 'recall'; readonly input: Record<string, unknown> }
  | { readonly skill: 'subscribe'; readonly afterSeq: number | undefined };

export const DEFAULT_SKILL: SkillId = 'recall';
export const DEFAULT_CELL_TYPE = 'Fact';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSkill(value: unknown): value is SkillId {
  return typeof value === 'string' && (SKILLS as readonly string[]).includes(value);
}

function refuse(message: string): never {
  throw new RequestMalformedError(message);
}

function skillName(value: unknown, where: string): SkillId | undefined {
  if (value === undefined) return undefined;
  if (!isSkill(value)) refuse(`${where} must be one of ${SKILLS.join(', ')}`);
  return value;
}

function subscribeCall(args: Record<string, unknown>): SkillCall {
  const unknown = Object.keys(args).filter((key) => key !== 'after_seq');
  if (unknown.length > 0) refuse(`subscribe takes only after_seq; unknown: ${unknown.join(', ')}`);
  const afterSeq = args.after_seq;
  if (afterSeq !== undefined && !(typeof afterSeq === 'number' && Number.isSafeInteger(afterSeq) && afterSeq >= 0)) {
    refuse('after_seq must be a diff seq (a non-negative integer)');
  }
  return { skill: 'subscribe', afterSeq: afterSeq as number | undefined };
}

export function selectSkill(message: Message | undefined): SkillCall {
  if (message === undefined) refuse('params.message is required');
  const texts: string[] = [];
  let data: Record<string, unknown> | undefined;
  for (const part of message.parts) {
    const content = part.content;
    if (content?.$case === 'text') texts.push(content.value);
    else if (content?.$case === 'data') {
      if (!isPlainObject(content.value)) refuse('a data part must hold a JSON object: { "skill": ..., arguments }');
      if (data !== undefined) refuse('a message carries at most one data part');
      data = content.value;
    } else refuse('only text and data parts are accepted (no files)');
  }
  const { skill: dataSkill, ...args } = data ?? {};
  const fromData = skillName(dataSkill, 'the data part’s skill');
  const fromMetadata = skillName(isPlainObject(message.metadata) ? message.metadata.skill : undefined, 'metadata.skill');
  if (fromData !== undefined && fromMetadata !== undefined && fromData !== fromMetadata) {
    refuse(`the data part asks for ${fromData} but metadata.skill for ${fromMetadata}`);
  }
  const skill = fromData ?? fromMetadata ?? DEFAULT_SKILL;
  const text = texts.join('\n');
  switch (skill) {
    case 'remember':
      return {
        skill,
        input: { ...(text === '' ? {} : { content: text }), cell_type: DEFAULT_CELL_TYPE, ...args },
      };
    case 'recall':
      return { skill, input: { ...(text === '' ? {} : { query: text }), ...args } };
    case 'subscribe':
      return subscribeCall(args);
  }
}
