/**
 * Text written by other agents, made safe to show inside a Claude Code `<channel>` block: it must
 * read as quoted data, never as markup or as a turn of the conversation. So it is folded to one
 * line (no line of it can start anything), stripped of invisible characters (format characters,
 * variation selectors, tag characters and every other default-ignorable code point: they could
 * split `Sys\u200btem:` past a check or carry hidden data), XML-escaped together with everything
 * that renders like `<` or `>` or decomposes to one (no `</channel>` or `<system>` can appear),
 * speaker labels however spelled (`System:`, `ＳＹＳＴＥＭ：`, `Ѕystem꞉`, `Human:`…) are marked as
 * quoted, and the result is bounded. Everything else stays as written, in any script. Meta entries
 * keep identifier keys and a plain value alphabet.
 */
import { markSpeakerLabels } from './speaker-labels.js';

/**
 * What renders like `<` and `>`, or decomposes to it (`＜`, `﹤`, `⊀`…): angle quotation marks and
 * ornaments, mathematical, CJK and vertical angle brackets, relations drawn as angles (`⪻ ⫷`),
 * raised omission brackets (`⸌ ⸍`), letters shaped like them (Canadian syllabics `ᐸ ᑉ`…).
 * Guillemets `« »` stay: they are ordinary prose quotes.
 */
const OPENING_LOOKALIKES = /[＜﹤‹\u3008\u2329︿⟨˂˱ᐸᐹᑉᑈ❮❬❰⧼≺⊀⊰⋖≮≪⋘⪡⩹⧀⪻⫷⟪《︽⦑⦓⦉⸌ᚲ𝈶]/gu;
const CLOSING_LOOKALIKES = /[＞﹥›\u3009\u232a﹀⟩˃˲ᐳᐴ❯❭❱⧽≻⊁⊱⋗≯≫⋙⪢⩺⧁⪼⫸⟫》︾⦒⦔⦊⸍𝈷]/gu;
const INVISIBLE = /[\p{Cf}\p{Cc}\p{Default_Ignorable_Code_Point}]/gu;
/** Whitespace and line breaks (NEL too), and the braille blank that renders as one; not U+FEFF, which is invisible. */
const ANY_SPACE = /(?:[^\S\uFEFF]|[\u0085\u2800])+/gu;
const ENTITY_START = /&(?=#?[A-Za-z0-9]+;)/g;
/** A cut may not leave half an entity behind. */
const PARTIAL_ENTITY = /&[a-z]*$/;

const META_KEY = /^[A-Za-z0-9_]+$/;
const META_VALUE_UNSAFE = /[^A-Za-z0-9._:/@,-]/g;
/** Meta values are ids, names and numbers: none is longer. */
export const MAX_META_VALUE_CHARS = 160;

/** `<`, `>` and their look-alikes as entities; an `&` only where it would start one (so `R&D` stays). */
function escapeMarkup(text: string): string {
  return text
    .replace(ENTITY_START, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(OPENING_LOOKALIKES, '&lt;')
    .replace(CLOSING_LOOKALIKES, '&gt;');
}

/** The first `maxChars` code points, with an ellipsis when cut. */
function bounded(text: string, maxChars: number): string {
  const chars = Array.from(text);
  if (chars.length <= maxChars) return text;
  return `${chars.slice(0, Math.max(0, maxChars - 1)).join('').replace(PARTIAL_ENTITY, '')}…`;
}

/** One line of another agent's text as inert data, at most `maxChars` code points. */
export function quotedData(text: string, maxChars: number): string {
  const flat = text.replace(ANY_SPACE, ' ').replace(INVISIBLE, '').replace(ANY_SPACE, ' ').trim();
  return bounded(markSpeakerLabels(escapeMarkup(flat)), maxChars);
}

/** A meta value Claude Code can put in an attribute as it is: ids, names, numbers; empty if nothing is left. */
export function metaValue(value: string | number): string {
  return String(value).normalize('NFKC').replace(META_VALUE_UNSAFE, '').slice(0, MAX_META_VALUE_CHARS);
}

/** Meta from candidate entries: identifier keys only (Claude Code drops others silently), safe non-empty values. */
export function channelMeta(entries: Readonly<Record<string, string | number | null | undefined>>): Readonly<Record<string, string>> {
  const meta: Record<string, string> = {};
  for (const [key, raw] of Object.entries(entries)) {
    if (raw === null || raw === undefined || !META_KEY.test(key)) continue;
    const value = metaValue(raw);
    if (value !== '') meta[key] = value;
  }
  return meta;
}
