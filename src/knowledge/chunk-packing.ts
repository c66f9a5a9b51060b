/**
 * Turns a source's units (paragraphs, list items, code blocks, turns: ranges of the source) into
 * chunks that fit the embedder's window: consecutive units of one section share a chunk while
 * they fit; a unit too large alone is cut into windows at token boundaries, each window repeating
 * the end of the previous one (the overlap), so no sentence is only ever seen cut in half.
 */
import { estimateTokens, preTokens, type PreToken } from './token-estimate.js';

export interface TextRange {
  readonly start: number;
  readonly end: number;
}

/** Units that belong under one heading path; chunks never span two sections. */
export interface Section {
  readonly path: readonly string[];
  readonly units: readonly TextRange[];
}

export interface ChunkLimits {
  /** Tokens of the embedder's window available to one chunk's text ([CLS] and [SEP] excluded). */
  readonly maxTokens: number;
  /** Tokens a cut unit's next window repeats of the previous one. */
  readonly overlapTokens: number;
  /** Characters of source one chunk covers at most (whitespace costs no token but is text to store and show). */
  readonly maxChars: number;
}

export interface PackedChunk extends TextRange {
  readonly path: readonly string[];
}

/** Joins a heading path as it prefixes a chunk's embedded text. */
export const PATH_SEPARATOR = ' › ';

/** The heading path as embedded, shortened from the front when it would take more than a quarter of the window. */
export function pathPrefix(path: readonly string[], maxTokens: number): string {
  let parts = [...path];
  while (parts.length > 1 && estimateTokens(parts.join(PATH_SEPARATOR)) > maxTokens / 4) parts = parts.slice(1);
  let text = parts.join(PATH_SEPARATOR);
  while (text !== '' && estimateTokens(text) > maxTokens / 4) text = Array.from(text).slice(0, -8).join('');
  return text;
}

export function packSections(source: string, sections: readonly Section[], limits: ChunkLimits): PackedChunk[] {
  const chunks: PackedChunk[] = [];
  for (const section of sections) {
    const prefix = pathPrefix(section.path, limits.maxTokens);
    const available = limits.maxTokens - (prefix === '' ? 0 : estimateTokens(prefix) + 1);
    let open: TextRange | null = null;
    const flush = (): void => {
      if (open !== null) chunks.push({ ...open, path: section.path });
      open = null;
    };
    for (const unit of section.units) {
      const candidate: TextRange = open === null ? unit : { start: open.start, end: unit.end };
      if (fits(source, candidate, available, limits.maxChars)) {
        open = candidate;
        continue;
      }
      flush();
      if (fits(source, unit, available, limits.maxChars)) {
        open = unit;
        continue;
      }
      for (const window of cutWindows(source, unit, available, limits)) chunks.push({ ...window, path: section.path });
    }
    flush();
  }
  return chunks;
}

function fits(source: string, range: TextRange, maxTokens: number, maxChars: number): boolean {
  return range.end - range.start <= maxChars && estimateTokens(source.slice(range.start, range.end)) <= maxTokens;
}

/** Windows over one unit, at pre-token boundaries, each within the limits, overlapping by about `overlapTokens`. */
export function cutWindows(source: string, unit: TextRange, maxTokens: number, limits: ChunkLimits): TextRange[] {
  // A run longer than a tenth of the window is cut into pieces, so any window holds at least ten.
  const tokens = preTokens(source, unit.start, unit.end, Math.max(2, Math.floor(Math.min(maxTokens, limits.maxChars) / 10)));
  const windows: TextRange[] = [];
  let first = 0;
  while (first < tokens.length) {
    let last = first;
    let cost = 0;
    while (last < tokens.length && withinWindow(tokens, first, last, cost, maxTokens, limits.maxChars)) {
      cost += (tokens[last] as PreToken).cost;
      last += 1;
    }
    if (last === first) last = first + 1;
    windows.push({ start: (tokens[first] as PreToken).start, end: (tokens[last - 1] as PreToken).end });
    if (last >= tokens.length) break;
    // Step back from the window's end while the repeated part stays within the overlap; always move forward.
    let next = last;
    let repeated = 0;
    while (next - 1 > first && repeated + (tokens[next - 1] as PreToken).cost <= limits.overlapTokens) {
      next -= 1;
      repeated += (tokens[next] as PreToken).cost;
    }
    first = next;
  }
  return windows;
}

function withinWindow(tokens: readonly PreToken[], first: number, last: number, cost: number, maxTokens: number, maxChars: number): boolean {
  const token = tokens[last] as PreToken;
  return cost + token.cost <= maxTokens && token.end - (tokens[first] as PreToken).start <= maxChars;
}
