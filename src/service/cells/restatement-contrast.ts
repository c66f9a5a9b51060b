/**
 * Whether two statements an embedder scores as near-identical still say different things, and why
 * (the merge guard of restatement). Sentence
 * embedders score "timeout is 3 seconds" and "timeout is 30 seconds", or a statement and its
 * negation, as close as two rewordings (bench/near-duplicate-fixture.ts, CONTRADICTION_PAIRS), and
 * merging those would lose the newer claim. Two cheap lexical signs catch most of them: the numbers
 * named (digits, or English number words up to ninety) differ, or one negates and the other does
 * not. The subject can differ too — another name, identifier or swapped subject
 * (restatement-subjects.ts), or, about the same subject, the claim (restatement-predicates.ts). English only; another language's contrast falls back on the
 * similarity alone.
 */
import { predicatesDiffer } from './restatement-predicates.js';
import { subjectsContrast, type SubjectContrast } from './restatement-subjects.js';

export type RestatementContrast = 'number' | 'negation' | SubjectContrast | 'predicate';

const NUMBER_WORDS: Readonly<Record<string, number>> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
  twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90, hundred: 100, thousand: 1000,
};
const NEGATIONS = new Set(['not', 'no', 'never', 'without', 'none', 'nothing', 'neither', 'nor', 'cannot', 'forbidden', 'disallowed']);

function tokens(text: string): string[] {
  return text.toLowerCase().replace(/n't\b/g, ' not').split(/[^\p{L}\p{N}.]+/u).map((t) => t.replace(/^\.+|\.+$/g, '')).filter((t) => t.length > 0);
}

function numbersIn(words: readonly string[]): string {
  const found = new Set<string>();
  for (const word of words) {
    const named = NUMBER_WORDS[word];
    if (named !== undefined) found.add(String(named));
    for (const digits of word.match(/\d+(?:\.\d+)?/g) ?? []) found.add(String(Number(digits)));
  }
  return [...found].sort().join(' ');
}

function negates(words: readonly string[]): boolean {
  return words.some((word) => NEGATIONS.has(word));
}

/** What sets the two statements apart, or null when nothing does (they may be merged). */
export function restatementContrast(a: string, b: string): RestatementContrast | null {
  const [wordsA, wordsB] = [tokens(a), tokens(b)];
  if (numbersIn(wordsA) !== numbersIn(wordsB)) return 'number';
  if (negates(wordsA) !== negates(wordsB)) return 'negation';
  return subjectsContrast(a, b) ?? (predicatesDiffer(a, b) ? 'predicate' : null);
}
