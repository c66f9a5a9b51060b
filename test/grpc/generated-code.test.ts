/**
 * src/grpc/gen is what `npm run proto:generate` (buf + the local protoc-gen-es) makes of proto/:
 * regenerated into a temporary folder here and compared file by file, so a proto change without
 * regeneration (or a hand edit of generated code) fails.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BUF = join(ROOT, 'node_modules/.bin/buf');

async function filesUnder(dir: string): Promise<Map<string, string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = new Map<string, string>();
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(dir, path), await readFile(path, 'utf8'));
  }
  return files;
}

describe('generated gRPC code', () => {
  let scratch: string | undefined;
  afterAll(async () => {
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  });

  it('is exactly what buf generates from proto/ now', async () => {
    scratch = await mkdtemp(join(tmpdir(), 'hyphae-proto-'));
    await promisify(execFile)(BUF, ['generate', '--output', scratch], { cwd: ROOT });
    const fresh = await filesUnder(join(scratch, 'src/grpc/gen'));
    const committed = await filesUnder(join(ROOT, 'src/grpc/gen'));
    expect([...committed.keys()].sort()).toEqual([...fresh.keys()].sort());
    expect(fresh.size).toBeGreaterThanOrEqual(5);
    for (const [path, content] of fresh) expect({ path, content: committed.get(path) }).toEqual({ path, content });
  }, 60_000);
});
