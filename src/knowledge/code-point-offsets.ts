/**
 * Sources are addressed in Unicode code points (docs/sources.md): PostgreSQL's characters, and a
 * unit no slice can cut in the middle of. The chunker works in UTF-16 code units (JavaScript's
 * string positions); this maps its positions to code points in one pass over the text.
 */
export function codePointOffsets(text: string, positions: readonly number[]): Map<number, number> {
  const wanted = [...new Set(positions)].sort((a, b) => a - b);
  const mapped = new Map<number, number>();
  let unit = 0;
  let points = 0;
  for (const position of wanted) {
    while (unit < position && unit < text.length) {
      const code = text.charCodeAt(unit);
      unit += code >= 0xd800 && code <= 0xdbff && unit + 1 < text.length ? 2 : 1;
      points += 1;
    }
    mapped.set(position, points);
  }
  return mapped;
}

/** The text's length in code points. */
export function codePointLength(text: string): number {
  let points = 0;
  for (let unit = 0; unit < text.length; unit += 1) {
    const code = text.charCodeAt(unit);
    if (!(code >= 0xdc00 && code <= 0xdfff && unit > 0 && isHigh(text.charCodeAt(unit - 1)))) points += 1;
  }
  return points;
}

function isHigh(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
