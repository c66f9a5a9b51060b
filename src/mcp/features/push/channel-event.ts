/**
 * Claude Code channel events (`notifications/claude/channel`): what reached an agent's inbox,
 * injected into its running session as `<channel source="…" …>content</channel>`. The content is a
 * short text a person would write, naming the author and its trust and quoting the stored text as
 * data (channel-text.ts); the meta entries become the tag's attributes, so they keep identifier
 * keys and plain values. A memory is one event; many at once become one digest.
 */
import type { Diff } from '../../../core/entities.js';
import { cellUri } from '../resources/resource-uris.js';
import { sourceUri } from '../resources/source-uris.js';
import { MAX_META_VALUE_CHARS, channelMeta, metaValue, quotedData } from './channel-text.js';

/** The experimental capability whose presence makes Claude Code listen for channel events. */
export const CHANNEL_CAPABILITY = 'claude/channel';
export const CHANNEL_NOTIFICATION_METHOD = 'notifications/claude/channel';
/** The most an event's content holds, in code points: the documented bound, whatever the templates say. */
export const CHANNEL_CONTENT_MAX_CHARS = 1000;
/** The stored text quoted in an event, in code points after escaping (a diff's preview is ≤ 280). */
export const CHANNEL_QUOTE_MAX_CHARS = 400;
/** Names (agents, projects) as they appear in an event's text. */
const NAME_MAX_CHARS = 64;
/** A digest names this many authors, then counts the others. */
const DIGEST_AUTHORS_SHOWN = 5;

export type ChannelMeta = Readonly<Record<string, string>>;

export interface ChannelEvent {
  readonly content: string;
  readonly meta: ChannelMeta;
}

export interface ChannelNotification {
  readonly jsonrpc: '2.0';
  readonly method: typeof CHANNEL_NOTIFICATION_METHOD;
  readonly params: { readonly content: string; readonly meta: ChannelMeta };
}

/** Memories summed up for a digest: how many, of which types, from whom (counts by key). */
export interface ChannelTally {
  readonly count: number;
  readonly byType: ReadonlyMap<string, number>;
  readonly byAuthor: ReadonlyMap<string, number>;
}

/** Why a digest went out: the per-minute budget was spent, or the session is back after being away. */
export type DigestReason = 'pace' | 'reconnect';

export function channelNotification(event: ChannelEvent): ChannelNotification {
  return { jsonrpc: '2.0', method: CHANNEL_NOTIFICATION_METHOD, params: { content: event.content, meta: event.meta } };
}

function boundedContent(lines: readonly string[]): string {
  const chars = Array.from(lines.join('\n'));
  return chars.length <= CHANNEL_CONTENT_MAX_CHARS ? chars.join('') : `${chars.slice(0, CHANNEL_CONTENT_MAX_CHARS - 1).join('')}…`;
}

/** Trust as a person reads it: two decimals at most, no trailing zeros. */
export function formatTrust(trust: number): string {
  return String(Number(trust.toFixed(2)));
}

function name(text: string): string {
  return quotedData(text, NAME_MAX_CHARS);
}

/** Always opens with "agent", so no line starts with a name another agent chose. */
function author(diff: Diff, trust: number | undefined): string {
  return `agent ${name(diff.source_agent)} (trust ${trust === undefined ? 'unknown' : formatTrust(trust)})`;
}

/** What a diff is about: a cell by its type, or a document (a source's chunks, told once). */
function isDocument(diff: Diff): diff is Diff & { readonly source_id: string } {
  return typeof diff.source_id === 'string';
}

/** What happened, as the first line says it. */
function headline(diff: Diff, trust: number | undefined): string {
  const who = author(diff, trust);
  const what = `${isDocument(diff) ? 'document' : diff.cell_type} in project ${name(diff.project)}`;
  switch (diff.op) {
    case 'created':
      return `The ${who} stored a ${what}`;
    case 'updated':
      return diff.supersedes === null ? `The ${who} updated a ${what}` : `The ${who} replaced a ${what} with a new version`;
    case 'promoted':
      return `A ${what} by ${who} was promoted to durable knowledge`;
    case 'deleted':
      return `A ${what} by ${who} was deleted`;
  }
}

/** One memory that reached the agent: who, what, the stored text quoted as data, where to read it whole. */
export function memoryChannelEvent(diff: Diff, trust: number | undefined): ChannelEvent {
  if (isDocument(diff)) return documentChannelEvent(diff, trust);
  const uri = cellUri(diff.node_id);
  const reach = diff.op === 'deleted' ? 'It is gone; drain_inbox acknowledges this.' : `Read it whole: ${uri} (or recall). drain_inbox acknowledges it.`;
  const content = boundedContent([
    `${headline(diff, trust)}, matching your beacon at similarity ${diff.similarity.toFixed(2)}. Its text, quoted as data:`,
    `│ ${quotedData(diff.preview, CHANNEL_QUOTE_MAX_CHARS)}`,
    reach,
  ]);
  return {
    content,
    meta: channelMeta({
      kind: 'memory',
      op: diff.op,
      node_id: diff.node_id,
      cell_type: diff.cell_type,
      source_agent: diff.source_agent,
      trust: trust === undefined ? undefined : formatTrust(trust),
      project: diff.project,
      similarity: diff.similarity.toFixed(2),
      beacon_id: diff.beacon_id,
      uri,
      supersedes: diff.supersedes,
    }),
  };
}

/**
 * A document that reached the agent (one event per source, however many of its chunks matched):
 * who, its title quoted as data, where to read it, and the chunk that matched best.
 */
function documentChannelEvent(diff: Diff & { readonly source_id: string }, trust: number | undefined): ChannelEvent {
  const uri = sourceUri(diff.source_id, diff.project);
  const content = boundedContent([
    `${headline(diff, trust)}, matching your beacon at similarity ${diff.similarity.toFixed(2)}. Its title, quoted as data:`,
    `│ ${quotedData(diff.preview, CHANNEL_QUOTE_MAX_CHARS)}`,
    `Read it: ${uri}; the part that matched best is ${cellUri(diff.node_id)}. drain_inbox acknowledges it.`,
  ]);
  return {
    content,
    meta: channelMeta({
      kind: 'document',
      op: diff.op,
      source_id: diff.source_id,
      node_id: diff.node_id,
      source_agent: diff.source_agent,
      trust: trust === undefined ? undefined : formatTrust(trust),
      project: diff.project,
      similarity: diff.similarity.toFixed(2),
      beacon_id: diff.beacon_id,
      uri: `hyphae://sources/${diff.source_id}`,
    }),
  };
}

/** Keys by count, highest first; ties keep their first-seen order. */
function ranked(counts: ReadonlyMap<string, number>): string[] {
  return [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([key]) => key);
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function listed(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1] ?? ''}`;
}

/** Comma-joined whole entries, as many as fit in one meta value. */
function metaList(items: readonly string[]): string {
  let joined = '';
  for (const item of items.map(metaValue).filter((value) => value !== '')) {
    const next = joined === '' ? item : `${joined},${item}`;
    if (next.length > MAX_META_VALUE_CHARS) break;
    joined = next;
  }
  return joined;
}

function authorsText(byAuthor: ReadonlyMap<string, number>): string {
  const authors = ranked(byAuthor).map(name);
  const shown = authors.slice(0, DIGEST_AUTHORS_SHOWN);
  const others = authors.length - shown.length;
  return others > 0 ? listed([...shown, plural(others, 'other')]) : listed(shown);
}

/** Many memories at once, counted by type and author; drain_inbox reads them. Null when there is nothing to say. */
export function digestChannelEvent(tally: ChannelTally, reason: DigestReason): ChannelEvent | null {
  if (tally.count === 0) return null;
  const memories = tally.count === 1 ? 'memory' : 'memories';
  const opening = reason === 'reconnect' ? `While you were away, ${tally.count} ${memories} reached you` : `${tally.count} more ${memories} reached you`;
  const types = ranked(tally.byType).map((type) => plural(tally.byType.get(type) ?? 0, type));
  return {
    content: boundedContent([`${opening} — ${listed(types)}, from ${authorsText(tally.byAuthor)}; drain_inbox to read them.`]),
    meta: channelMeta({
      kind: 'digest',
      reason,
      count: tally.count,
      cell_types: metaList(ranked(tally.byType)),
      source_agents: metaList(ranked(tally.byAuthor)),
    }),
  };
}
