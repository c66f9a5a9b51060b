/**
 * Whether two statements about the same subject make different claims: "the SSO integration
 * between the directory and the wiki breaks after password changes" and "… is maintained by the
 * security team" score 0.86 under minilm, since the long shared subject dominates both vectors.
 * The sign: each side says at least two content words the other does not (after a light stemming
 * that keeps "rotated"/"rotate", "retried"/"retries" and "monthly"/"month" together). A rewording mostly swaps one
 * verb or adds one word; chosen on the merge-confusion fixture (bench/merge-confusion.ts), where it
 * keeps 42 of 45 rewordings merging. Numbers are left to the number guard. English only.
 */
import { FUNCTION_WORDS } from './restatement-subjects.js';

/** Words that carry no claim of their own beyond the function words of the subject guard. */
const FILLER = new Set(['through', 'against', 'instead', 'about', 'still', 'again', 'just', 'very', 'too', 'able', 'being', 'get', 'gets', 'got', 'make', 'makes', 'use', 'uses', 'used', 'using']);
/** At least this many content words on each side that the other lacks make the claims different. */
const MIN_UNSHARED = 2;

function stem(word: string): string {
  let w = word;
  if (w.length > 4 && /ie[sd]$/.test(w)) w = `${w.slice(0, -3)}y`;
  else {
    const suffix = ['ing', 'ed', 'es', 'ly', 's'].find((s) => w.endsWith(s) && !w.endsWith('ss') && w.length - s.length >= 3);
    if (suffix !== undefined) w = w.slice(0, -suffix.length);
  }
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w.length > 3 && /([b-df-hj-np-tv-z])\1$/.test(w) ? w.slice(0, -1) : w;
}

function contentWords(text: string): Set<string> {
  const words = text.toLowerCase().replace(/['’]s\b/gu, '').split(/[^\p{L}\p{N}]+/u);
  return new Set(words.filter((w) => w.length > 1 && !/\d/.test(w) && !FUNCTION_WORDS.has(w) && !FILLER.has(w)).map(stem));
}

function unshared(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let count = 0;
  for (const word of a) if (!b.has(word)) count += 1;
  return count;
}

export function predicatesDiffer(a: string, b: string): boolean {
  const [wordsA, wordsB] = [contentWords(a), contentWords(b)];
  return unshared(wordsA, wordsB) >= MIN_UNSHARED && unshared(wordsB, wordsA) >= MIN_UNSHARED;
}
