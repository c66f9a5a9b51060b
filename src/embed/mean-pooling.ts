/**
 * Sentence-transformers' pooling for all-MiniLM-L6-v2: the mean of the token vectors whose
 * attention-mask entry is 1 (padding excluded), then scaled to unit L2 length.
 * `hidden` is the model's `last_hidden_state`, row-major [batch, tokens, dimension].
 */
export function meanPoolNormalized(
  hidden: Float32Array,
  mask: ArrayLike<number | bigint>,
  batch: number,
  tokens: number,
  dimension: number,
): Float32Array[] {
  if (hidden.length !== batch * tokens * dimension) {
    throw new RangeError(`hidden state has ${hidden.length} values, expected ${batch}×${tokens}×${dimension}`);
  }
  if (mask.length !== batch * tokens) throw new RangeError(`attention mask has ${mask.length} values, expected ${batch}×${tokens}`);
  const out: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    const sum = new Float64Array(dimension);
    let count = 0;
    for (let t = 0; t < tokens; t++) {
      if (Number(mask[b * tokens + t]) === 0) continue;
      count++;
      const base = (b * tokens + t) * dimension;
      for (let d = 0; d < dimension; d++) sum[d] = (sum[d] as number) + (hidden[base + d] as number);
    }
    let sumOfSquares = 0;
    for (let d = 0; d < dimension; d++) {
      // sentence-transformers clamps the token count at 1e-9: an all-padding row pools to zero.
      const mean = (sum[d] as number) / Math.max(count, 1e-9);
      sum[d] = mean;
      sumOfSquares += mean * mean;
    }
    // torch.nn.functional.normalize divides by max(norm, 1e-12).
    const scale = 1 / Math.max(Math.sqrt(sumOfSquares), 1e-12);
    const vector = new Float32Array(dimension);
    for (let d = 0; d < dimension; d++) vector[d] = (sum[d] as number) * scale;
    out.push(vector);
  }
  return out;
}
