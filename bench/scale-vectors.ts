/**
 * Vectors for a million cells without a million embeddings: `BASE` sentences of the synthetic
 * corpus are embedded once with minilm (cached under ~/.cache/hyphae/bench/), and cell g gets
 * normalize(base[g mod B] + 0.35·base[(g div B) mod B'] + 0.15·base[(7g) mod B]) — a million
 * distinct unit vectors on the model's own manifold, clustered as real memories are (around
 * topics), built inside PostgreSQL by pgvector's arithmetic so nothing crosses the wire per cell.
 * Queries use combinations no cell has.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createEmbedder } from '../src/embed/create-embedder.js';
import type { Queryable } from '../src/store/db.js';
import { toVectorText } from '../src/store/vector-text.js';
import { syntheticCorpus } from './corpus.js';

export const SCALE_DIMENSION = 384;
export const SCALE_MODEL_ID = 'all-minilm-l6-v2-int8';
const BASE = 2_000;
const FIRST_WEIGHT = 0.35;
const SECOND_WEIGHT = 0.15;

function scaled(v: Float32Array, by: number): Float32Array {
  return v.map((x) => x * by);
}

export class ScaleVectors {
  private constructor(private readonly base: readonly Float32Array[]) {}

  static async load(): Promise<ScaleVectors> {
    const dir = join(process.env.HYPHAE_ASSETS_DIR ?? join(homedir(), '.cache', 'hyphae'), 'bench');
    const file = join(dir, `scale-base-minilm-${BASE}.f32`);
    if (!existsSync(file)) {
      // The cached file holds int8 vectors, what the scale figures were measured with.
      const embedder = await createEmbedder({ kind: 'minilm', model: SCALE_MODEL_ID });
      const texts = syntheticCorpus(BASE, 2026);
      const out = new Float32Array(BASE * SCALE_DIMENSION);
      for (let i = 0; i < BASE; i += 64) (await embedder.embed(texts.slice(i, i + 64))).forEach((v, j) => out.set(v, (i + j) * SCALE_DIMENSION));
      await embedder.close();
      await mkdir(dir, { recursive: true });
      await writeFile(file, Buffer.from(out.buffer));
    }
    const bytes = await readFile(file);
    const all = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    return new ScaleVectors(Array.from({ length: BASE }, (_, i) => all.slice(i * SCALE_DIMENSION, (i + 1) * SCALE_DIMENSION)));
  }

  /** How many distinct cells the scheme gives (every pair of a first and a second base vector). */
  static readonly capacity = BASE * (BASE / 2);

  /** A vector no cell has: the second base index is taken from the far end. */
  query(j: number): Float32Array {
    const b = this.base;
    const sum = new Float32Array(SCALE_DIMENSION);
    const parts: [Float32Array, number][] = [
      [b[(j * 37) % BASE] as Float32Array, 1],
      [b[BASE - 1 - (j % (BASE / 2))] as Float32Array, FIRST_WEIGHT],
      [b[(j * 7 + 3) % BASE] as Float32Array, SECOND_WEIGHT],
    ];
    for (const [v, w] of parts) for (let d = 0; d < SCALE_DIMENSION; d++) sum[d] = (sum[d] as number) + (v[d] as number) * w;
    const norm = Math.hypot(...sum);
    return sum.map((x) => x / norm);
  }

  /** The base vectors, with their weighted copies, as table scale_base on `q` (dropped with the database). */
  async upload(q: Queryable): Promise<void> {
    await q.query(`CREATE TABLE scale_base (i int PRIMARY KEY, v vector(${SCALE_DIMENSION}), first vector(${SCALE_DIMENSION}), second vector(${SCALE_DIMENSION}))`);
    const rows = this.base.map((v, i) => ({ i, v: toVectorText(v), first: toVectorText(scaled(v, FIRST_WEIGHT)), second: toVectorText(scaled(v, SECOND_WEIGHT)) }));
    for (let i = 0; i < rows.length; i += 250) {
      await q.query(
        `INSERT INTO scale_base SELECT r.i, r.v::vector, r.first::vector, r.second::vector FROM jsonb_to_recordset($1::jsonb) AS r(i int, v text, first text, second text)`,
        [JSON.stringify(rows.slice(i, i + 250))],
      );
    }
  }
}

/** The SQL expression of cell g's vector, over scale_base aliased a, b and c joined on cellBaseJoin(g). */
export const CELL_VECTOR_SQL = `l2_normalize(a.v + b.first + c.second)`;
export function cellBaseJoin(g: string): string {
  return `JOIN scale_base a ON a.i = ${g} % ${BASE} JOIN scale_base b ON b.i = (${g} / ${BASE}) % ${BASE / 2} JOIN scale_base c ON c.i = (${g} * 7) % ${BASE}`;
}
