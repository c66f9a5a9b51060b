import { describe, expect, it } from 'vitest';
import { tokenWindows } from './token-windows.js';

const opts = { windowTokens: 5, maxWindows: 3, clsId: 101, sepId: 102 };

describe('tokenWindows', () => {
  it('wraps each run of windowTokens-2 ids in [CLS] … [SEP]', () => {
    expect(tokenWindows([1, 2, 3, 4, 5, 6, 7], opts)).toEqual([
      [101, 1, 2, 3, 102],
      [101, 4, 5, 6, 102],
      [101, 7, 102],
    ]);
  });

  it('drops what lies beyond maxWindows', () => {
    expect(tokenWindows([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], opts)).toEqual([
      [101, 1, 2, 3, 102],
      [101, 4, 5, 6, 102],
      [101, 7, 8, 9, 102],
    ]);
  });

  it('gives an empty text one window of the special tokens alone', () => {
    expect(tokenWindows([], opts)).toEqual([[101, 102]]);
  });

  it('refuses a window with no room for a token', () => {
    expect(() => tokenWindows([1], { ...opts, windowTokens: 2 })).toThrow(RangeError);
  });
});
