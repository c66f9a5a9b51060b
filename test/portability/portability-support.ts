/**
 * What the export/import tests share: databases of two kinds (PGlite in-process; native PostgreSQL,
 * one server per test file, a fresh database per call), a facade over each, a populated tenant that
 * touches every record type, an export read back as lines, and the setup each test file opens.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKeyAdministration, type KeyAdministration } from '../../src/auth/key-administration.js';
import type { Principal } from '../../src/core/principal.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import { createMemoryFacade, dumpReaderFor, exportDumpLines, fileDumpSource, importDump, type DumpSource, type ManagedMemoryFacade } from '../../src/service/index.js';
import type { Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrator.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import { freshTenant } from '../support/facade-expectations.js';
import { createDatabase, skipWithoutPostgres, startRealPostgres, type RealPostgres } from '../support/real-postgres.js';
import { createTestDb } from '../support/test-db.js';

export type DatabaseKind = 'pglite' | 'postgres';

/** The kinds each export/import test runs on; native PostgreSQL is skipped where the machine has none. */
export const DATABASE_KINDS: readonly { kind: DatabaseKind; skip: boolean }[] = [
  { kind: 'pglite', skip: false },
  { kind: 'postgres', skip: skipWithoutPostgres() },
];

export interface Databases {
  open(embedder: Embedder): Promise<Db>;
  close(): Promise<void>;
}

/** Opens fresh migrated databases of one kind; close() frees them all (and the server). */
export function databasesOf(kind: DatabaseKind): Databases {
  const opened: Db[] = [];
  let server: Promise<RealPostgres> | undefined;
  return {
    async open(embedder): Promise<Db> {
      const identity = { modelId: embedder.modelId, dimension: embedder.dimension };
      if (kind === 'pglite') {
        const db = await createTestDb(identity);
        opened.push(db);
        return db;
      }
      server ??= startRealPostgres();
      const db = await openPgDb({ url: await createDatabase(await server, `d_${randomUUID().replaceAll('-', '')}`), max: 4 });
      opened.push(db);
      await migrate(db, identity);
      return db;
    },
    async close(): Promise<void> {
      await Promise.all(opened.splice(0).map((db) => db.close()));
      if (server !== undefined) await (await server).close();
    },
  };
}

export const HASH = (): HashEmbedder => new HashEmbedder();

export function facadeOver(db: Db, embedder: Embedder): ManagedMemoryFacade {
  return createMemoryFacade({ db, embedder, authCacheTtlMs: 0, config: { hitFlushIntervalMs: 3_600_000, restatementSimilarity: 0.95 } });
}

export interface Populated {
  readonly tenant: string;
  readonly admin: Principal;
  readonly adminKey: string;
  readonly writer: Principal;
  /** A cell every test can recall by its words. */
  readonly recallable: string;
}

/**
 * A tenant holding every record type: keys (one revoked), a session with its scene and a
 * consolidation, cells with provenance, a supersession chain, a reinforcement with its idempotency
 * key, a promoted L2 copy, beacons, an inbox partly drained with waiting diffs, and a channel mark.
 */
export async function populate(facade: ManagedMemoryFacade, db: Db, tenant: string): Promise<Populated> {
  const keys = createKeyAdministration(db);
  const adminKey = (await keys.createKey({ tenant, agent: 'alice', roles: ['admin'] })).key;
  const admin = await facade.authenticate(adminKey);
  const writer = await facade.authenticate((await keys.createKey({ tenant, agent: 'bob', roles: ['writer'], trust: 0.7 })).key);
  const revoked = await keys.createKey({ tenant, agent: 'carol', roles: ['reader'] });
  await keys.revokeKey(revoked.key_id);

  await facade.placeBeacon(admin, { text: 'deploy pipeline release', include_own: false, threshold: 0.2 });
  await facade.placeBeacon(writer, { text: 'database storage choices', include_own: false, project: 'alpha', ttl_seconds: 86_400 });
  const session = await facade.openSession(writer, { project: 'alpha', title: 'release work' });
  const recallable = 'The deploy pipeline release needs a manual approval step before production';
  await facade.store(writer, {
    content: recallable,
    cell_type: 'Decision',
    salience: 0.9,
    source_ref: { kind: 'file', locator: 'docs/release.md:12' },
    metadata: { ticket: 'REL-7', tags: ['release', 'approval'] },
    idempotency_key: 'release-approval',
  });
  await facade.drainInbox(admin, { page_size: 10 });
  const old = await facade.store(writer, { content: 'The deploy pipeline release runs on Jenkins', cell_type: 'Fact', salience: 0.6 });
  await facade.store(writer, { content: 'The deploy pipeline release runs on GitHub Actions', cell_type: 'Fact', salience: 0.6, supersedes: old.node_id });
  await facade.openSession(admin, { project: 'alpha' });
  await facade.store(admin, { content: recallable, cell_type: 'Decision', salience: 0.5, idempotency_key: 'restated' });
  await facade.store(writer, { content: 'Release notes are written by the on-call engineer', cell_type: 'Pattern', salience: 0.4 });
  await facade.consolidateScene(writer, session.scene_id);
  for (let i = 0; i < 2; i++) {
    await facade.recall(writer, { query: recallable, k: 1 });
    await facade.flushHits();
  }
  const backlog = await facade.peekInbox(admin, { limit: 50 });
  await facade.markChannelSettled(admin, backlog.head_seq);
  return { tenant, admin, adminKey, writer, recallable };
}

/** Every line of an export, as the exporter wrote them. */
export async function exportLines(db: Db, embedder: Embedder, tenantId: string | null, withVectors: boolean, project: string | null = null): Promise<string[]> {
  let text = '';
  for await (const chunk of exportDumpLines(db, {
    scope: { tenantId, project },
    withVectors,
    identity: { modelId: embedder.modelId, dimension: embedder.dimension },
    hyphaeVersion: '0.0.0-test',
    now: new Date(),
    pageSize: 3,
  })) {
    text += chunk;
  }
  return text.split('\n').filter((line) => line !== '');
}

/** The lines without the header (its export time differs between two exports of the same data). */
export function records(lines: readonly string[]): string[] {
  return lines.filter((line) => !line.startsWith('{"type":"header"'));
}

export interface TempFiles {
  write(lines: readonly string[] | string): Promise<DumpSource>;
  close(): Promise<void>;
}

export async function tempFiles(): Promise<TempFiles> {
  const dir = await mkdtemp(join(tmpdir(), 'hyphae-portability-'));
  let n = 0;
  return {
    async write(content): Promise<DumpSource> {
      const path = join(dir, `file-${n++}.jsonl`);
      await writeFile(path, typeof content === 'string' ? content : `${content.join('\n')}\n`);
      return fileDumpSource(path);
    },
    close: () => rm(dir, { recursive: true, force: true }),
  };
}

type ImportSummary = Awaited<ReturnType<typeof importDump>>;

export interface ImportOptions {
  /** The target's embedder; the setup's own when unset. */
  readonly embedder?: Embedder;
  readonly tenant?: string;
  readonly bulkLoadFrom?: number;
}

/** What an export/import test opens before its cases: databases of one kind, temporary files, a source database with a facade over it and a fresh tenant's id. */
export interface PortabilitySetup {
  readonly databases: Databases;
  readonly files: TempFiles;
  readonly db: Db;
  readonly facade: ManagedMemoryFacade;
  readonly tenant: string;
  readonly keys: KeyAdministration;
  /** Imports `content`, written to a file as a Hyphae export, into `target`. */
  importInto(target: Db, content: readonly string[] | string, options?: ImportOptions): Promise<ImportSummary>;
  /** Closes the facade, then the databases, then removes the files. */
  close(): Promise<void>;
}

export async function openPortability(kind: DatabaseKind, embedder: Embedder, tenantLabel: string, facadeOf = facadeOver): Promise<PortabilitySetup> {
  const databases = databasesOf(kind);
  const files = await tempFiles();
  const db = await databases.open(embedder);
  const facade = facadeOf(db, embedder);
  return {
    databases,
    files,
    db,
    facade,
    tenant: freshTenant(tenantLabel),
    keys: createKeyAdministration(db),
    async importInto(target, content, options = {}): Promise<ImportSummary> {
      const using = options.embedder ?? embedder;
      return importDump(target, dumpReaderFor('hyphae', await files.write(content)), {
        target: { modelId: using.modelId, dimension: using.dimension },
        embedder: async () => using,
        ...(options.tenant === undefined ? {} : { tenant: options.tenant }),
        ...(options.bulkLoadFrom === undefined ? {} : { bulkLoadFrom: options.bulkLoadFrom }),
      });
    },
    async close(): Promise<void> {
      await facade.close();
      await databases.close();
      await files.close();
    },
  };
}
