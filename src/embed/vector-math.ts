/** Scales a vector to unit L2 length; an all-zero vector stays zero (there is no direction to keep). */
export function l2Normalize(values: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(values);
  let sumOfSquares = 0;
  for (let i = 0; i < out.length; i++) sumOfSquares += (out[i] ?? 0) * (out[i] ?? 0);
  if (sumOfSquares === 0) return out;
  const scale = 1 / Math.sqrt(sumOfSquares);
  for (let i = 0; i < out.length; i++) out[i] = (out[i] ?? 0) * scale;
  return out;
}

export function dotProduct(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += (a[i] ?? 0) * (b[i] ?? 0);
  return sum;
}

export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const denominator = Math.sqrt(dotProduct(a, a) * dotProduct(b, b));
  return denominator === 0 ? 0 : dotProduct(a, b) / denominator;
}
