/** The inbox as a model reads it: one line per undelivered diff, with the cell's resource URI. */
import type { Diff, InboxPeek } from '../../../core/entities.js';
import { cellUri } from './resource-uris.js';

const PREVIEW_CHARS = 280;

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function diffLine(diff: Diff): string {
  const where = diff.op === 'deleted' ? '(deleted)' : cellUri(diff.node_id);
  return `- #${diff.seq} ${diff.op} ${diff.cell_type} by ${diff.source_agent} in ${diff.project} (similarity ${diff.similarity.toFixed(2)}): ${oneLine(diff.preview, PREVIEW_CHARS)} — ${where}`;
}

export function inboxMarkdown(peek: InboxPeek): string {
  if (peek.diffs.length === 0) return 'Your Hyphae inbox has no undelivered diffs.\n';
  const more = peek.has_more ? ' (more follow: drain_inbox pages through them)' : '';
  return [
    `Your Hyphae inbox: ${peek.diffs.length} undelivered diff${peek.diffs.length === 1 ? '' : 's'}${more}. Read a cell's content through its hyphae://cells/… resource; drain_inbox marks diffs delivered.`,
    ...peek.diffs.map(diffLine),
    '',
  ].join('\n');
}
