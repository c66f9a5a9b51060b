/**
 * A conservative count of the WordPiece tokens (all-MiniLM-L6-v2's tokenizer) a text becomes,
 * computed without the tokenizer so the chunker stays pure. Measured against the real tokenizer
 * (docs/sources.md, "Chunking"): English prose and markdown 0.6–0.9 real tokens per estimated one,
 * code 0.7–0.9, hex and base64 ≤ 0.75, CJK and Cyrillic ≤ 1.0. Each run of ASCII letters costs one
 * token per two characters; a run holding a digit, or longer than a word, one per character;
 * every other visible code point one; whitespace and control characters nothing.
 */
const PRE_TOKEN = /[A-Za-z0-9]+|[^\s\p{Cc}\p{Cf}A-Za-z0-9]/gu;

/** A run of ASCII letters longer than this is no word; it is charged a token per character. */
const LONGEST_WORD = 24;

export function runCost(run: string): number {
  const first = run.charCodeAt(0);
  const alnum = (first >= 48 && first <= 57) || (first >= 65 && first <= 90) || (first >= 97 && first <= 122);
  if (!alnum) return 1;
  if (run.length > LONGEST_WORD || /[0-9]/.test(run)) return run.length;
  return Math.ceil(run.length / 2);
}

export function estimateTokens(text: string): number {
  let total = 0;
  for (const match of text.matchAll(PRE_TOKEN)) total += runCost(match[0]);
  return total;
}

/** A text's pre-tokens with their positions: what a window may start or end on. */
export interface PreToken {
  readonly start: number;
  readonly end: number;
  readonly cost: number;
}

/** Pre-tokens of `text[from, to)`, a run longer than `maxRun` cut into pieces (each piece is charged at least as much as its share). */
export function preTokens(text: string, from: number, to: number, maxRun: number): PreToken[] {
  const tokens: PreToken[] = [];
  const pattern = new RegExp(PRE_TOKEN.source, 'gu');
  pattern.lastIndex = from;
  for (let match = pattern.exec(text); match !== null && match.index < to; match = pattern.exec(text)) {
    const start = match.index;
    const end = Math.min(to, start + match[0].length);
    for (let at = start; at < end; at += maxRun) {
      const piece = text.slice(at, Math.min(end, at + maxRun));
      tokens.push({ start: at, end: at + piece.length, cost: piece.length === end - start ? runCost(piece) : piece.length });
    }
  }
  return tokens;
}
