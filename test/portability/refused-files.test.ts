/**
 * Files an import refuses, clearly and with nothing written (docs/export-format.md): a line cut
 * short, a file cut at a line boundary or missing lines, a newer format version, a file that is not
 * an export, rows of a tenant the import is not for, ids or key hashes another tenant (or key)
 * holds, a corroboration record whose cell is missing; and an import that fails while writing rolls back.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/embed/embedder.js';
import type { ManagedMemoryFacade } from '../../src/service/index.js';
import type { Db } from '../../src/store/db.js';
import { expectCode, freshTenant } from '../support/facade-expectations.js';
import { DATABASE_KINDS, exportLines, HASH, openPortability, populate, records, type PortabilitySetup } from './portability-support.js';


/** Fails its `failOn`-th call, as an embedding service going away halfway through. */
class FailingEmbedder implements Embedder {
  private calls = 0;
  constructor(
    private readonly inner: Embedder,
    private readonly failOn: number,
  ) {}
  get modelId(): string {
    return this.inner.modelId;
  }
  get dimension(): number {
    return this.inner.dimension;
  }
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls += 1;
    if (this.calls === this.failOn) throw new Error('the embedding service went away');
    return this.inner.embed(texts);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

describe.each(DATABASE_KINDS)('refused imports on $kind', { timeout: 180_000 }, ({ kind, skip }) => {
  let setup: PortabilitySetup;
  let db: Db;
  let facade: ManagedMemoryFacade;
  let tenant: string;
  let lines: string[];
  let before: string[];
  const embedder = HASH();

  beforeAll(async () => {
    if (skip) return;
    setup = await openPortability(kind, embedder, 'port');
    ({ db, facade, tenant } = setup);
    await populate(facade, db, tenant);
    // Export without vectors, so that a write re-embeds (and a failing embedder can fail it).
    lines = await exportLines(db, embedder, tenant, false);
    before = await exportLines(db, embedder, null, true);
  });
  afterAll(() => setup?.close());

  /** The source database exports exactly what it did before the refused import. */
  const unchanged = async (): Promise<void> => {
    expect(records(await exportLines(db, embedder, null, true))).toEqual(records(before));
  };
  const cellLine = (): number => lines.findIndex((line) => line.startsWith('{"type":"cell"'));
  const renamed = (name: string): string[] => lines.map((line) => line.replaceAll(`"tenant":"${tenant}"`, `"tenant":"${name}"`));

  it.skipIf(skip)('refuses a line cut short, naming the line', async () => {
    const cut = cellLine();
    const text = `${lines.slice(0, cut).join('\n')}\n${(lines[cut] as string).slice(0, 80)}`;
    const target = await setup.databases.open(embedder);
    const error = await expectCode(setup.importInto(target, text), 'INVALID_ARGUMENT');
    expect(error.message).toContain(`line ${cut + 1}: not a JSON object (a line cut short`);
    expect(records(await exportLines(target, embedder, null, false))).toEqual(['{"type":"end","counts":{"tenant":0,"key":0,"scene":0,"session":0,"source":0,"cell":0,"corroboration":0,"relation":0,"evidence":0,"beacon":0,"inbox":0,"diff":0}}']);
  });

  it.skipIf(skip)('refuses a file cut at a line boundary, or with a line missing, by its end line', async () => {
    const cutAtBoundary = await expectCode(setup.importInto(db, lines.slice(0, cellLine() + 1)), 'INVALID_ARGUMENT');
    expect(cutAtBoundary.message).toMatch(/ends without its end line after \d+ records: the file was cut short/);
    const missing = await expectCode(setup.importInto(db, lines.filter((_, i) => i !== cellLine())), 'INVALID_ARGUMENT');
    expect(missing.message).toMatch(/the end line's counts differ from the records read \(cell: 5 read, 6 declared\)/);
    await unchanged();
  });

  it.skipIf(skip)('refuses a newer format version, naming both versions, and a file that is not an export', async () => {
    const newer = [(lines[0] as string).replace('"version":4', '"version":5'), ...lines.slice(1)];
    const error = await expectCode(setup.importInto(db, newer), 'INVALID_ARGUMENT');
    expect(error.message).toMatch(/is export format version 5, newer than this hyphae reads \(version 4 and older\): upgrade hyphae/);
    const foreign = await expectCode(setup.importInto(db, ['{"type":"entity","name":"x","entityType":"y","observations":[]}']), 'INVALID_ARGUMENT');
    expect(foreign.message).toContain('not a Hyphae export');
    await unchanged();
  });

  it.skipIf(skip)('refuses rows of a tenant the import is not for', async () => {
    const error = await expectCode(setup.importInto(db, lines, { tenant: 'someone-else' }), 'FORBIDDEN');
    expect(error.message).toContain(`belongs to tenant "${tenant}"; this import is for tenant "someone-else" only`);
    await unchanged();
  });

  it.skipIf(skip)("refuses ids that another tenant holds in the target, and a key hash another key holds, writing nothing", async () => {
    const stranger = freshTenant('stranger');
    const error = await expectCode(setup.importInto(db, renamed(stranger)), 'CONFLICT');
    expect(error.message).toMatch(/key [0-9a-f-]{36} already exists in another tenant; an import never moves or merges rows across tenants/);
    const keyLine = lines.findIndex((line) => line.startsWith('{"type":"key"'));
    const stolenHash = lines.map((line, i) => (i === keyLine ? line.replace(/"key_id":"[^"]+"/, `"key_id":"${randomUUID()}"`) : line));
    const hashError = await expectCode(setup.importInto(db, stolenHash), 'CONFLICT');
    expect(hashError.message).toContain('its hash already belongs to another key');
    await unchanged();
  });

  it.skipIf(skip)('refuses a corroboration record whose cell is neither in the file nor the tenant\'s in the target, rather than drop it', async () => {
    const at = lines.findIndex((line) => line.startsWith('{"type":"beacon"'));
    const orphan = JSON.stringify({
      type: 'corroboration',
      tenant,
      corroboration_id: randomUUID(),
      node_id: randomUUID(),
      agent: 'dave',
      content: 'said again',
      salience: 0.5,
      scene_id: null,
      session_id: null,
      source_ref: null,
      metadata: {},
      similarity: 1,
      created_at: '2026-01-01T00:00:00Z',
    });
    const withOrphan = [...lines.slice(0, at), orphan, ...lines.slice(at)].map((line) =>
      line.startsWith('{"type":"end"') ? line.replace(/"corroboration":(\d+)/, (_, n: string) => `"corroboration":${Number(n) + 1}`) : line,
    );
    const error = await expectCode(setup.importInto(db, withOrphan), 'CONFLICT');
    expect(error.message).toMatch(/corroboration [0-9a-f-]+ names cell [0-9a-f-]+, which is neither in the file nor tenant "[^"]+"'s in the target; nothing was imported/);
    await unchanged();
  });

  it.skipIf(skip)('rolls back an import that fails while writing: the target is as it was', async () => {
    const target = await setup.databases.open(embedder);
    await expect(setup.importInto(target, lines, { embedder: new FailingEmbedder(embedder, 2) })).rejects.toThrow('the embedding service went away');
    const counts = await target.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM cells) + (SELECT count(*) FROM api_keys) + (SELECT count(*) FROM scenes) + (SELECT count(*) FROM tenants)::int AS n`,
    );
    expect(Number(counts.rows[0]?.n)).toBe(0);
  });
});
