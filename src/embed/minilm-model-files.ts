import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { UnavailableError } from '../core/errors.js';

export const MINILM_MODEL_PACKAGE = '@hyphae/model-all-minilm-l6-v2';

/** The arithmetic: `fp32` as the model was trained (the default), `int8` dynamically quantized (faster, vectors within cosine ≈0.976–1 of fp32). */
export type MiniLmPrecision = 'fp32' | 'int8';

/** The ONNX file of each precision in the model package; fp32's weights are stored as float16 and cast to float32 when the session loads (half the file, the same arithmetic). */
export const MINILM_MODEL_FILE: Readonly<Record<MiniLmPrecision, 'model-fp16.onnx' | 'model-int8.onnx'>> = {
  fp32: 'model-fp16.onnx',
  int8: 'model-int8.onnx',
};

type MiniLmFileName = 'model-fp16.onnx' | 'model-int8.onnx' | 'tokenizer.json';

/** The bytes we ship (packages/model-all-minilm-l6-v2/SHA256SUMS holds the same; a test keeps them equal). */
export const MINILM_FILE_SHA256: Readonly<Record<MiniLmFileName, string>> = {
  'model-fp16.onnx': '4a755f291b73dd6869739643fe34e214a7b16c50e0531de933f8407296097bc5',
  'model-int8.onnx': 'afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1',
  'tokenizer.json': 'da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0',
};

export interface MiniLmModelFiles {
  readonly model: Buffer;
  readonly tokenizerJson: string;
}

/** The folder of the model package installed beside the server (a workspace of this repository). */
export function defaultMiniLmModelDir(): string {
  return dirname(createRequire(import.meta.url).resolve(`${MINILM_MODEL_PACKAGE}/package.json`));
}

/**
 * Reads the model of `precision` and tokenizer.json from `dir` and checks each file's SHA-256, so a
 * truncated checkout, a Git LFS pointer or a swapped file fails the load with its name instead of embedding wrongly.
 */
export async function readMiniLmModelFiles(dir: string, precision: MiniLmPrecision): Promise<MiniLmModelFiles> {
  const [model, tokenizer] = await Promise.all([readChecked(dir, MINILM_MODEL_FILE[precision]), readChecked(dir, 'tokenizer.json')]);
  return { model, tokenizerJson: tokenizer.toString('utf8') };
}

async function readChecked(dir: string, name: MiniLmFileName): Promise<Buffer> {
  const path = join(dir, name);
  const bytes = await readFile(path);
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== MINILM_FILE_SHA256[name]) {
    throw new UnavailableError(
      `${path} has SHA-256 ${actual}, expected ${MINILM_FILE_SHA256[name]}: the minilm model files are damaged or replaced; ` +
        'restore them with `git checkout packages/model-all-minilm-l6-v2` or `bash scripts/fetch-minilm-model.sh`',
    );
  }
  return bytes;
}
