/**
 * Speaker labels (`System:`, `Human:`…) as a reader sees them, not as their bytes spell them:
 * text is compared on a skeleton in the manner of Unicode's confusable detection (UTS #39) — each
 * character in compatibility form with its accents dropped, then replaced by the Latin prototype
 * it renders like — so `Ѕystem:` (Cyrillic Ѕ), `ＳＹＳＴＥＭ：`, `𝐒𝐲𝐬𝐭𝐞𝐦:`, `ꜱʏꜱᴛᴇᴍ:`, `Systern:`, `ꮪystem:`,
 * `Sysŧem:` or `System꞉` are found as `System:` is. Such a label is marked `(quoted)` in place; nothing else
 * of the text changes.
 */

// A table of the marker letters' confusables rather than an allow-list of what a marker may look like: only text that renders as a marker is touched, every script's ordinary words stay as written.
/**
 * Characters that compatibility decomposition leaves alone (or, like `︰`, turns into something else) but that render like a
 * marker's letters or a colon: Unicode's confusables data for these prototypes, and the letters with a stroke, bar, hook or
 * tail that have no decomposition (`ŧ`, `ʂ`, `ɱ`, `đ`…). One case of a letter is enough: the other is looked up through it.
 */
const CONFUSABLES: Readonly<Record<string, string>> = {
  a: 'аɑα⍺ᴀАΑᎪᗅꓮⱥᶏ',
  c: 'сᴄСꓚᏟȼƈɕꞓ',
  e: 'еєҽᴇЕΕᎬꓰⴹɇᶒ',
  h: 'һհᏂНΗᎻꓧᕼⲎħɦⱨ',
  // `i`, `l`, `I`, `1` and `|` share one prototype: in many fonts nobody can tell them apart.
  l: 'iIl1|іɪιɩӏıІӀǀ׀ߊⵏᛁꓲᏞɨᵻᶖłƚɫɬɭȴꝉᶅⱡ',
  n: 'пոռηΝꓠⲚɴɲɳȵᵰᶇꞥꞑ',
  o: '0оοօОΟᴏ০୦ᴑⲟⲞøɵꝋ',
  p: 'рρⲣРΡᏢꓑᴘƥᵽꝑᵱᶈ',
  r: 'гᴦⲅꭇᎡꓣʀɍɽɼɾᵲᶉꞧ',
  s: 'ѕꜱЅᏚꓢՏʂȿᵴᶊꞩ',
  t: 'тᴛТΤᎢꓔŧƫƭʈⱦȶᵵ',
  u: 'υսʋᴜꓴՍ∪ᑌμʉᵾᶙ',
  v: 'ѵνᴠꓦѴⴸ∨Ꮩⱱᶌⱴ',
  y: 'уүγʏУҮΥꓬƴɏ',
  // Two letters that render as one: `rn` reads as `m`, `cl` as `d` (so both sides of the comparison take the pair).
  rn: 'mMмМΜᎷꓟᴍϺɱᶆᵯ',
  cl: 'dDԁᏧꓒꓓᑯᗞᗪᎠđɖɗᶑȡᵭᶁ',
  ':': 'ː˸∶꞉׃։܃܄᛬⁚ⵂꓽ᠃᠄᠉⦂ःઃ፡꛴︰',
};

const PROTOTYPE: ReadonlyMap<string, string> = new Map(
  Object.entries(CONFUSABLES).flatMap(([prototype, lookalikes]) => Array.from(lookalikes, (char) => [char, prototype] as const)),
);

const MARK = /^\p{M}$/u;
/** Speaker labels a model could take for the start of a turn. */
const MARKER_WORDS = ['system', 'user', 'assistant', 'human', 'developer', 'tool'] as const;
const QUOTED = ' (quoted)';

/** The prototype of a character or of its other case (`ꮪ` is read through `Ꮪ`, `Ŧ` through `ŧ`), if it has one. */
function prototypeOf(char: string): string | undefined {
  return PROTOTYPE.get(char) ?? PROTOTYPE.get(char.toUpperCase()) ?? PROTOTYPE.get(char.toLowerCase());
}

/** The skeleton of one code point: in compatibility form, each character's prototype (ASCII in lower case), accents dropped. */
function skeletonOf(char: string): string {
  // Looked up before decomposition too: `︰` decomposes to `..`, yet renders as a colon.
  const whole = prototypeOf(char);
  if (whole !== undefined) return whole;
  let skeleton = '';
  for (const part of char.normalize('NFKD')) {
    // Looked up before accents go: a few colon look-alikes (`ः`) are marks themselves.
    const prototype = prototypeOf(part);
    if (prototype !== undefined) skeleton += prototype;
    else if (!MARK.test(part)) skeleton += part <= '\u007f' ? part.toLowerCase() : part;
  }
  return skeleton;
}

function skeleton(text: string): string {
  return Array.from(text, skeletonOf).join('');
}

/** A label: a marker's skeleton, then optional spaces and a colon. */
const LABEL = new RegExp(`(${MARKER_WORDS.map(skeleton).join('|')})\\s*:`, 'gu');
/** A label inside a Latin word (`ecosystem:`) is none; anything else before it may start a turn. */
const LATIN_WORD_CHAR = /[A-Za-z0-9_]/;

/** `text` with `(quoted)` after the word of every speaker label, however it is spelled. */
export function markSpeakerLabels(text: string): string {
  let folded = '';
  /** For each character of `folded`, where the code point it came from starts and ends in `text`. */
  const starts: number[] = [];
  const ends: number[] = [];
  let offset = 0;
  for (const char of text) {
    const part = skeletonOf(char);
    folded += part;
    for (let i = 0; i < part.length; i += 1) {
      starts.push(offset);
      ends.push(offset + char.length);
    }
    offset += char.length;
  }
  const cuts: number[] = [];
  for (const match of folded.matchAll(LABEL)) {
    const before = match.index === 0 ? '' : text.charAt(starts[match.index - 1] ?? 0);
    if (!LATIN_WORD_CHAR.test(before)) cuts.push(ends[match.index + (match[1] ?? '').length - 1] ?? 0);
  }
  let marked = text;
  for (const cut of cuts.reverse()) marked = `${marked.slice(0, cut)}${QUOTED}${marked.slice(cut)}`;
  return marked;
}
