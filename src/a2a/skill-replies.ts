/** What the skills answer, as A2A parts: the facade's JSON as a data part, and a text part a model can read. */
import { randomUUID } from 'node:crypto';
import { Role, type Message, type Part } from '@a2a-js/sdk';
import type { Artifact } from '@a2a-js/sdk';
import type { Diff, MemoryNode, RecallResult } from '../core/entities.js';
import type { SkillId } from './skill-selection.js';

export function dataPart(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

export function textPart(value: string): Part {
  return { content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function agentMessage(skill: SkillId, contextId: string, parts: Part[]): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId: '',
    role: Role.ROLE_AGENT,
    parts,
    metadata: { skill },
    extensions: [],
    referenceTaskIds: [],
  };
}

export function rememberReply(node: MemoryNode, contextId: string): Message {
  return agentMessage('remember', contextId, [dataPart(node), textPart(`Stored ${node.cell_type} ${node.node_id} in project ${node.project}.`)]);
}

export function recallReply(result: RecallResult, contextId: string): Message {
  const lines = result.results.map((hit, index) => {
    const node = hit.node;
    const head = `${index + 1}. ${hit.node_id} (distance ${hit.distance.toFixed(3)})`;
    return node === undefined ? head : `${head} [${node.cell_type}] ${node.content}`;
  });
  const text = lines.length === 0 ? 'No memories matched.' : lines.join('\n');
  return agentMessage('recall', contextId, [dataPart(result), textPart(text)]);
}

/** The one artifact of a subscribe task, replaced by each diff: the task keeps the latest, the stream carries all. */
export const DIFF_ARTIFACT_ID = 'diff';

export function diffArtifact(diff: Diff): Artifact {
  return {
    artifactId: DIFF_ARTIFACT_ID,
    name: 'diff',
    description: `${diff.op} ${diff.cell_type} from ${diff.source_agent}`,
    parts: [dataPart(diff), textPart(`${diff.op} ${diff.cell_type} by ${diff.source_agent} (seq ${diff.seq}): ${diff.preview}`)],
    metadata: { seq: diff.seq },
    extensions: [],
  };
}

export function statusText(skill: SkillId, contextId: string, taskId: string, text: string): Message {
  return { ...agentMessage(skill, contextId, [textPart(text)]), taskId };
}
