/**
 * Cuts a text's token ids (without special tokens) into model inputs of at most `windowTokens`
 * each, `[CLS] … [SEP]` included; at most `maxWindows` windows, the rest of the text is dropped.
 * An empty text still yields one window (`[CLS] [SEP]`): the model needs at least one input row.
 */
export function tokenWindows(
  ids: readonly number[],
  options: { readonly windowTokens: number; readonly maxWindows: number; readonly clsId: number; readonly sepId: number },
): number[][] {
  const body = options.windowTokens - 2;
  if (!Number.isInteger(body) || body < 1) throw new RangeError(`a window needs room for at least one token, got ${options.windowTokens}`);
  const windows: number[][] = [];
  for (let start = 0; start < ids.length && windows.length < options.maxWindows; start += body) {
    windows.push([options.clsId, ...ids.slice(start, start + body), options.sepId]);
  }
  if (windows.length === 0) windows.push([options.clsId, options.sepId]);
  return windows;
}
