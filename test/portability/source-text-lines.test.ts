/**
 * A source longer than the import's line bound makes the round trip (docs/export-format.md,
 * "Lines"): its text leaves on source_text lines after its source line, every line within the
 * bound, and comes back whole; a sequence of those lines other than the one the source line
 * announced is refused, naming the line, with nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import { SOURCE_TEXT_PART_CHARS } from '../../src/core/export-source-lines.js';
import { dumpReaderFor, importDump } from '../../src/service/index.js';
import { MAX_DUMP_LINE_CHARS } from '../../src/service/portability/dump-source.js';
import type { Db } from '../../src/store/db.js';
import { expectCode, freshTenant } from '../support/facade-expectations.js';
import { databasesOf, exportLines, facadeOver, HASH, records, tempFiles, type Databases, type TempFiles } from './portability-support.js';

const PART = SOURCE_TEXT_PART_CHARS;

/** A text over the line bound, with a surrogate pair across the first part's end: the cut must move before it, not split it. */
function longText(minChars: number): string {
  const paragraphs: string[] = [];
  let length = 0;
  for (let i = 0; length <= minChars; i += 1) {
    const paragraph = `Ledger entry ${i} of the quince archive: settled at 17:00 UTC, "closed" \\ filed. ${'ü'.repeat(i % 7)}`;
    paragraphs.push(paragraph);
    length += paragraph.length + 2;
  }
  const text = paragraphs.join('\n\n');
  return `${text.slice(0, PART - 1)}🧾${text.slice(PART + 1)}`;
}

describe('a source longer than the line bound through export and import on pglite', { timeout: 300_000 }, () => {
  const embedder = HASH();
  const text = longText(MAX_DUMP_LINE_CHARS + 300_000);
  // The parts the format prescribes: the first ends before the pair, the others hold PART code units each.
  const parts = [text.slice(0, PART - 1), ...Array.from({ length: Math.ceil((text.length - PART + 1) / PART) }, (_, i) => text.slice(PART - 1 + i * PART, PART - 1 + (i + 1) * PART))];
  const tenant = freshTenant('longsource');
  let databases: Databases;
  let files: TempFiles;
  let lines: string[];

  const importInto = async (target: Db, fileLines: readonly string[]): Promise<Awaited<ReturnType<typeof importDump>>> =>
    importDump(target, dumpReaderFor('hyphae', await files.write(fileLines)), { target: { modelId: embedder.modelId, dimension: embedder.dimension }, embedder: async () => embedder });

  beforeAll(async () => {
    databases = databasesOf('pglite');
    files = await tempFiles();
    const at = '2026-12-01T00:00:00.000000Z';
    const source = { tenant, project: 'default', source_id: 'archive', kind: 'knowledge', format: 'text', title: 'Quince archive', metadata: { team: 'ops' }, observation_date: null };
    lines = [
      JSON.stringify({ type: 'header', format: 'hyphae-export', version: 4, hyphae_version: '0.0.0-test', exported_at: at, scope: { tenant, project: null }, embedder: { model_id: embedder.modelId, dimension: embedder.dimension }, vectors: false }),
      JSON.stringify({ type: 'tenant', tenant, created_at: at }),
      JSON.stringify({ type: 'source', ...source, text: parts[0], continuation_lines: parts.length - 1, total_bytes: Buffer.byteLength(text), chunk_count: 0, created_by: 'alice', created_at: at, updated_at: at, expires_at: null }),
      ...parts.slice(1).map((part, i) => JSON.stringify({ type: 'source_text', tenant, project: 'default', source_id: 'archive', part: i + 1, text: part })),
      JSON.stringify({ type: 'end', counts: { tenant: 1, key: 0, scene: 0, session: 0, source: 1, cell: 0, corroboration: 0, relation: 0, evidence: 0, beacon: 0, inbox: 0, diff: 0 } }),
    ];
  });
  afterAll(async () => {
    await databases?.close();
    await files?.close();
  });

  it('imports it whole, exports it again as the same lines within the bound, and the round trip gives it back byte for byte', async () => {
    expect(text.length).toBeGreaterThan(MAX_DUMP_LINE_CHARS);
    expect(parts.length).toBeGreaterThan(8);
    const first = await databases.open(embedder);
    expect((await importInto(first, lines)).records.source).toEqual({ in_file: 1, added: 1 });
    const exported = await exportLines(first, embedder, tenant, false);
    for (const line of exported) expect(line.length).toBeLessThanOrEqual(MAX_DUMP_LINE_CHARS);
    expect(exported.slice(1).map((line) => JSON.parse(line) as unknown)).toEqual(lines.slice(1).map((line) => JSON.parse(line) as unknown));

    const target = await databases.open(embedder);
    expect((await importInto(target, exported)).records.source).toEqual({ in_file: 1, added: 1 });
    expect(records(await exportLines(target, embedder, tenant, false))).toEqual(records(exported));
    const { rows } = await target.query<{ same: boolean; chars: number }>('SELECT body = $1 AS same, total_chars AS chars FROM sources WHERE tenant_id = $2', [text, tenant]);
    expect(rows).toEqual([{ same: true, chars: Array.from(text).length }]);
    const facade = facadeOver(target, embedder);
    try {
      const reader = await facade.authenticate((await createKeyAdministration(target).createKey({ tenant, agent: 'alice', roles: ['reader'] })).key);
      const slice = await facade.readSource(reader, { source_id: 'archive', offset: PART - 10, limit: 20 });
      expect(slice.text).toBe(Array.from(text).slice(PART - 10, PART + 10).join(''));
    } finally {
      await facade.close();
    }
  });

  describe('refuses a sequence other than the one announced, naming the line, with nothing written', () => {
    const sourceAt = (): number => lines.findIndex((line) => line.startsWith('{"type":"source",'));
    const edit = (change: (copy: string[], at: number) => void): string[] => {
      const copy = [...lines];
      change(copy, sourceAt());
      return copy;
    };
    const refused = async (fileLines: readonly string[], message: RegExp): Promise<void> => {
      const target = await databases.open(embedder);
      const error = await expectCode(importInto(target, fileLines), 'INVALID_ARGUMENT');
      expect(error.message).toMatch(message);
      const { rows } = await target.query<{ n: number }>('SELECT (SELECT count(*) FROM sources)::int + (SELECT count(*) FROM tenants)::int AS n');
      expect(rows).toEqual([{ n: 0 }]);
    };

    it('a part missing', async () => {
      const fileLines = edit((copy, at) => copy.splice(at + 2, 1));
      await refused(fileLines, new RegExp(`line ${sourceAt() + 3}: source_text part 3 where part 2 of \\d+ of the source of line ${sourceAt() + 1} comes next`));
    });

    it('parts out of order', async () => {
      const fileLines = edit((copy, at) => copy.splice(at + 1, 2, copy[at + 2] as string, copy[at + 1] as string));
      await refused(fileLines, new RegExp(`line ${sourceAt() + 2}: source_text part 2 where part 1 of`));
    });

    it('the last part missing, so the end line comes next', async () => {
      const parts = (JSON.parse(lines[sourceAt()] as string) as { continuation_lines: number }).continuation_lines;
      const fileLines = edit((copy, at) => copy.splice(at + parts, 1));
      await refused(fileLines, new RegExp(`line ${sourceAt() + parts + 1}: a "end" line where source_text part ${parts} of ${parts} .* the source's text is cut short`));
    });

    it('a part of another source', async () => {
      const fileLines = edit((copy, at) => {
        copy[at + 1] = (copy[at + 1] as string).replace('"source_id":"archive"', '"source_id":"other"');
      });
      await refused(fileLines, new RegExp(`line ${sourceAt() + 2}: a source_text line of .*"other".* continues source .*"archive".* of line ${sourceAt() + 1}`));
    });

    it('a part no source line announced', async () => {
      const parts = (JSON.parse(lines[sourceAt()] as string) as { continuation_lines: number }).continuation_lines;
      const fileLines = edit((copy, at) => copy.splice(at + parts + 1, 0, copy[at + parts] as string));
      await refused(fileLines, new RegExp(`line ${sourceAt() + parts + 2}: a source_text line with no source line announcing it`));
    });

    it('the file ending inside the sequence', async () => {
      const fileLines = lines.slice(0, sourceAt() + 2);
    expect(fileLines.length).toBeLessThan(lines.length - 2);
      await refused(fileLines, new RegExp(`line ${sourceAt() + 2}: the end of the file where source_text part 2 of`));
    });
  });

  it('the same source written whole on one line is refused as too long, naming it', async () => {
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const at = parsed.findIndex((r) => r.type === 'source');
    const { continuation_lines: _parts, ...head } = parsed[at] as Record<string, unknown>;
    const whole = [...lines.slice(0, at), JSON.stringify({ ...head, text }), ...lines.filter((_, i) => i > at && parsed[i]?.type !== 'source_text')];
    const error = await expectCode(importInto(await databases.open(embedder), whole), 'INVALID_ARGUMENT');
    expect(error.message).toContain(`line ${at + 1} is longer than ${MAX_DUMP_LINE_CHARS} characters`);
  });
});
