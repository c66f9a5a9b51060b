/**
 * Another agent's words in a text a model reads, as one JSON string: no newline, carriage return
 * or Unicode line or paragraph separator survives raw, so stored text cannot start a line of its own
 * and forge an entry, a member or a closing line of the output around it.
 */
const LINE_SEPARATORS = /[\u2028\u2029]/g;

/** `text` as a JSON string literal, with U+2028 and U+2029 escaped too (JSON.stringify leaves them raw). */
export function quotedText(text: string): string {
  return JSON.stringify(text).replace(LINE_SEPARATORS, (separator) => `\\u${separator.charCodeAt(0).toString(16)}`);
}
