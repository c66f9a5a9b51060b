/** Stored text shortened for a resource's title, description or a listing line. */

/** The first `max` code points of `text`, the last replaced by an ellipsis when cut (never half a surrogate pair). */
export function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}

/** `text` on one line: every run of whitespace (line breaks and U+2028/2029 included) one space, trimmed. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
