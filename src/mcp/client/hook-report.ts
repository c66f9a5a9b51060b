/**
 * What `hyphae hook` prints for an agent host's hook (Claude Code's SessionStart and
 * UserPromptSubmit add a hook's stdout to the model's context): the diffs that reached the
 * inbox since the hook's last call and are not drained yet, bounded, as previews with resource
 * URIs. The hook keeps a cursor of its own (the last seq it printed), apart from drain_inbox's.
 */
import type { InboxReader } from './inbox-reader.js';
import { diffLine } from '../features/resources/inbox-presentation.js';

export interface HookReport {
  /** Empty when nothing new arrived: the host then adds nothing to the context. */
  readonly text: string;
  /** The cursor to keep for the next call. */
  readonly afterSeq: number;
}

export const DEFAULT_HOOK_LIMIT = 10;

export async function hookReport(reader: InboxReader, afterSeq: number, limit = DEFAULT_HOOK_LIMIT): Promise<HookReport> {
  let peek = await reader.peek(afterSeq);
  // A cursor past the inbox head belongs to another database (a reset inbox): start over.
  if (afterSeq > peek.head_seq) peek = await reader.peek(0);
  const shown = peek.diffs.slice(0, limit);
  const last = shown[shown.length - 1];
  if (last === undefined) return { text: '', afterSeq: Math.min(afterSeq, peek.head_seq) };
  const more = peek.diffs.length > shown.length || peek.has_more;
  const lines = [
    `Hyphae shared memory: ${shown.length} new memor${shown.length === 1 ? 'y' : 'ies'} from other agents matched your beacons${more ? ' (more are waiting)' : ''}:`,
    ...shown.map(diffLine),
    'Read a memory in full through its hyphae://cells/… resource (or the catch_up prompt); drain_inbox marks them delivered.',
    '',
  ];
  return { text: lines.join('\n'), afterSeq: last.seq };
}
