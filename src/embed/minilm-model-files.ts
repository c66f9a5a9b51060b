import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { UnavailableError } from '../core/errors.js';

export const MINILM_MODEL_PACKAGE = '@hyphae/model-all-minilm-l6-v2';

/** The bytes we ship (packages/model-all-minilm-l6-v2/SHA256SUMS holds the same; a test keeps them equal). */
export const MINILM_FILE_SHA256: Readonly<Record<'model.onnx' | 'tokenizer.json', string>> = {
  'model.onnx': 'afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1',
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
 * Reads model.onnx and tokenizer.json from `dir` and checks each file's SHA-256, so a truncated
 * checkout, a Git LFS pointer or a swapped file fails the load with its name instead of embedding wrongly.
 */
export async function readMiniLmModelFiles(dir: string): Promise<MiniLmModelFiles> {
  const [model, tokenizer] = await Promise.all([readChecked(dir, 'model.onnx'), readChecked(dir, 'tokenizer.json')]);
  return { model, tokenizerJson: tokenizer.toString('utf8') };
}

async function readChecked(dir: string, name: keyof typeof MINILM_FILE_SHA256): Promise<Buffer> {
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
