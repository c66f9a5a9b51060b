/**
 * 32-bit FNV-1a over UTF-16 code units, finished with murmur3's fmix32 so every output bit
 * depends on every input bit (FNV alone leaves the low bits, which pick the bucket, weak).
 */
export function hashFeature(feature: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < feature.length; i++) {
    h ^= feature.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
