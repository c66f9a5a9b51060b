/**
 * Whether two statements an embedder scores as near-identical are about different things: "Falcon
 * chose Envoy over Nginx for the GraphQL gateway" and "Harbor chose Envoy over Nginx for the GraphQL
 * gateway" score 0.85 under minilm, yet folding one into the other loses a fact. Three signs, each
 * cheap and lexical:
 * - an identifier (src/core/identifier-tokens.ts) one names and the other does not;
 * - a name — a capitalised word inside a sentence, or an acronym — one names and the other lacks
 *   (as any word); a capitalised first word counts too, unless a common opener, when both sides
 *   have such a word the other lacks: that is a subject swapped, where one side alone is a rewording;
 * - the same sentence with one short run of content words swapped: "The ledger service ran out of
 *   connections…" against "The inventory service ran out of connections…".
 * English only, like the number and negation guard beside it.
 */
import { identifierTokens } from '../../core/identifier-tokens.js';

export type SubjectContrast = 'identifier' | 'name' | 'swapped-words';

/** Capitalised sentence openers that name nothing (and cell-type labels agents prefix). */
const OPENERS = new Set(
  (
    'a an the this that these those there here it its we our us you your they their them he she his her i my me ' +
    'each every all any some no not none never always only also both either neither most many much few several ' +
    'in on at for from to by with without of as per via into onto over under after before since until during ' +
    'if when whenever once while because although though unless so then now today yesterday tomorrow ' +
    'and or but yet nor please note decision constraint risk pattern lesson fact preference context task todo ' +
    'is are was were be been do does did can could should would will must may might shall'
  ).split(' '),
);
/** Function words: a swapped run made only of these is a rewording, not a different statement. */
export const FUNCTION_WORDS: ReadonlySet<string> = new Set([...OPENERS, 'out', 'up', 'off', 'down', 'than', 'what', 'which', 'who', 'how', 'why', 'where', 'has', 'have', 'had']);

interface Word {
  readonly text: string;
  readonly lower: string;
  /** First word of a sentence (of the text, or after . ! ? : ;). */
  readonly opening: boolean;
}

function wordsOf(text: string): Word[] {
  const words: Word[] = [];
  let opening = true;
  for (const match of text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’._/#-]*|[.!?:;]/gu)) {
    const token = match[0];
    if (/^[.!?:;]$/.test(token)) {
      opening = true;
      continue;
    }
    const clean = token.replace(/['’]s$/u, '').replace(/[.]+$/, '');
    words.push({ text: clean, lower: clean.toLowerCase(), opening });
    opening = false;
  }
  return words;
}

/** A word as compared: lower-cased, a plural `s` set aside. */
function stem(lower: string): string {
  return lower.length > 3 && lower.endsWith('s') && !lower.endsWith('ss') ? lower.slice(0, -1) : lower;
}

function isName(word: Word): boolean {
  if (!/^\p{Lu}/u.test(word.text)) return false;
  if (/^\p{Lu}{2,}/u.test(word.text)) return true;
  return !OPENERS.has(word.lower);
}

/** The names of `a` that `b` lacks, split into those that count alone (inside a sentence, acronyms) and sentence openers. */
function namesMissing(a: readonly Word[], b: readonly Word[]): { inside: number; opening: number } {
  const present = new Set(b.map((w) => stem(w.lower)));
  let [inside, opening] = [0, 0];
  for (const word of a) {
    if (!isName(word) || present.has(stem(word.lower))) continue;
    if (word.opening && !/^\p{Lu}{2,}/u.test(word.text)) opening += 1;
    else inside += 1;
  }
  return { inside, opening };
}

/** Same words before and after, and one short run of content words swapped between them. */
function swappedRun(a: readonly Word[], b: readonly Word[]): boolean {
  const [x, y] = [a.map((w) => w.lower), b.map((w) => w.lower)];
  let prefix = 0;
  while (prefix < x.length && prefix < y.length && x[prefix] === y[prefix]) prefix += 1;
  let suffix = 0;
  while (suffix < x.length - prefix && suffix < y.length - prefix && x[x.length - 1 - suffix] === y[y.length - 1 - suffix]) suffix += 1;
  const [runA, runB] = [x.slice(prefix, x.length - suffix), y.slice(prefix, y.length - suffix)];
  if (runA.length === 0 || runB.length === 0 || runA.length > 3 || runB.length > 3) return false;
  const shared = prefix + suffix;
  const content = (run: readonly string[]): boolean => run.some((w) => !FUNCTION_WORDS.has(w) && !/^\d/.test(w));
  return shared >= 4 && shared >= 0.7 * Math.min(x.length, y.length) && content(runA) && content(runB);
}

export function subjectsContrast(a: string, b: string): SubjectContrast | null {
  const [idsA, idsB] = [identifierTokens(a), identifierTokens(b)];
  if (idsA.length !== idsB.length || idsA.some((id, i) => id !== idsB[i])) return 'identifier';
  const [wordsA, wordsB] = [wordsOf(a), wordsOf(b)];
  const [missingInB, missingInA] = [namesMissing(wordsA, wordsB), namesMissing(wordsB, wordsA)];
  if (missingInB.inside > 0 || missingInA.inside > 0) return 'name';
  if (missingInB.opening > 0 && missingInA.opening > 0) return 'name';
  return swappedRun(wordsA, wordsB) ? 'swapped-words' : null;
}
