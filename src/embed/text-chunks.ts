/**
 * Splits a text into pieces of at most `maxChars`, at whitespace where one is near the limit.
 * An empty text becomes one space: the tokenizer yields no token for it and the model would fail.
 */
export function splitIntoChunks(text: string, maxChars: number): string[] {
  if (text.trim() === '') return [' '];
  const chunks: string[] = [];
  let rest = text;
  while (rest.length > maxChars) {
    let cut = rest.lastIndexOf(' ', maxChars);
    if (cut < maxChars * 0.8) cut = maxChars;
    // Never split a surrogate pair.
    const code = rest.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
    const chunk = rest.slice(0, cut);
    if (chunk.trim() !== '') chunks.push(chunk);
    rest = rest.slice(cut);
  }
  if (rest.trim() !== '' || chunks.length === 0) chunks.push(rest.trim() === '' ? ' ' : rest);
  return chunks;
}
