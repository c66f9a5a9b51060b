/**
 * `hyphae export` and `hyphae import` as users run them, on embedded folders (hash embedder): a
 * mem0 file imported for a tenant and agent, exported to a file and to stdout, imported into
 * another folder from stdin and again without change; a cut file and a newer version refused with
 * exit code 2 and the folder unchanged; a foreign format without its tenant and agent refused.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runHyphae } from '../support/cli-process.js';

const MEM0_FIXTURE = fileURLToPath(new URL('../portability/fixtures/mem0-get-all.json', import.meta.url));

const records = (text: string): string[] => text.split('\n').filter((line) => line !== '' && !line.startsWith('{"type":"header"'));

describe('hyphae export / hyphae import', { timeout: 300_000 }, () => {
  let root: string;
  const env = (folder: string): NodeJS.ProcessEnv => cliEnv({ HYPHAE_DATA_DIR: join(root, folder), HYPHAE_EMBEDDER: 'hash' });

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'hyphae-port-cli-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('moves a tenant between folders through a file and stdin, idempotently, and refuses broken files', async () => {
    const imported = await runHyphae(['import', MEM0_FIXTURE, '--format', 'mem0', '--tenant', 'acme', '--agent', 'assistant', '--project', 'notes'], env('a'));
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ format: 'mem0', records: { cell: { in_file: 4, added: 4 } } });
    expect(imported.stderr).toContain('hyphae import: added cell 4/4 (added/in file)');

    const file = join(root, 'acme.jsonl');
    const exported = await runHyphae(['export', '--tenant', 'acme', '--out', file, '--with-vectors'], env('a'));
    expect(exported.code, exported.stderr).toBe(0);
    expect((await readdir(root)).filter((name) => name.endsWith('.partial'))).toEqual([]);
    const text = await readFile(file, 'utf8');
    expect(text.split('\n')[0]).toMatch(/^\{"type":"header","format":"hyphae-export","version":4,/);

    const fromStdin = await runHyphae(['import', '-'], env('b'), text);
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(JSON.parse(fromStdin.stdout)).toMatchObject({ vectors_from_file: true, records: { cell: { in_file: 4, added: 4 } } });
    const again = await runHyphae(['import', file, '--tenant', 'acme'], env('b'));
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ records: { cell: { in_file: 4, added: 0 } } });
    const copy = await runHyphae(['export', '--with-vectors'], env('b'));
    expect(copy.code, copy.stderr).toBe(0);
    expect(records(copy.stdout)).toEqual(records(text));

    const cut = join(root, 'cut.jsonl');
    await writeFile(cut, text.slice(0, text.indexOf('{"type":"cell"') + 120));
    const refused = await runHyphae(['import', cut], env('b'));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/cut\.jsonl: line \d+: not a JSON object \(a line cut short/);
    const newer = join(root, 'newer.jsonl');
    await writeFile(newer, text.replace('"version":4', '"version":7'));
    const tooNew = await runHyphae(['import', newer], env('b'));
    expect(tooNew.code).toBe(2);
    expect(tooNew.stderr).toContain('is export format version 7, newer than this hyphae reads (version 4 and older): upgrade hyphae to import it');
    expect(records((await runHyphae(['export', '--with-vectors'], env('b'))).stdout)).toEqual(records(text));

    const anonymous = await runHyphae(['import', MEM0_FIXTURE, '--format', 'mem0'], env('b'));
    expect(anonymous.code).toBe(2);
    expect(anonymous.stderr).toContain('--format mem0 needs --tenant and --agent');
  });
});
