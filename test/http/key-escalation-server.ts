/**
 * The HTTP app over the real facade for the key-escalation tests, on PGlite or on a native
 * PostgreSQL (test/support/real-postgres.ts), accepting API keys and — with OAuth settings —
 * access tokens of a real authorization server. Requests go through `app.inject`.
 */
import type { FastifyInstance } from 'fastify';
import { createKeyAdministration, type KeyAdministration } from '../../src/auth/key-administration.js';
import { buildSurfacesApp } from '../../src/cli/serve-app.js';
import type { OAuthConfig } from '../../src/core/oauth-config.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import { resolveHttpConfig } from '../../src/http/http-config.js';
import { createHyphaeMetrics } from '../../src/metrics/index.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../../src/service/index.js';
import type { Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrator.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import { startRealPostgres } from '../support/real-postgres.js';
import { createTestDb } from '../support/test-db.js';

export type EscalationBackend = 'pglite' | 'postgres';

export interface KeyEscalationServer {
  readonly app: FastifyInstance;
  readonly db: Db;
  readonly facade: ManagedMemoryFacade;
  /** The operator's key administration (no caller bound): fixtures are minted through it. */
  readonly keyAdmin: KeyAdministration;
  close(): Promise<void>;
}

export async function startKeyEscalationServer(backend: EscalationBackend, oauth?: OAuthConfig): Promise<KeyEscalationServer> {
  const embedder = await createEmbedder({ kind: 'hash' });
  const identity = { modelId: embedder.modelId, dimension: embedder.dimension };
  const closers: (() => Promise<void>)[] = [() => embedder.close()];
  const closeAll = async (): Promise<void> => {
    for (const close of closers.reverse()) await close();
  };
  try {
    let db: Db;
    if (backend === 'pglite') {
      db = await createTestDb(identity);
    } else {
      const server = await startRealPostgres();
      closers.push(() => server.close());
      db = await openPgDb({ url: server.url, max: 4 });
      await migrate(db, identity);
    }
    const opened = db;
    closers.push(() => opened.close());
    const facade = createMemoryFacade({
      db,
      embedder,
      // Revocations and trust changes are seen at once by the next request.
      authCacheTtlMs: 0,
      config: { hitFlushIntervalMs: 3_600_000 },
      ...(oauth === undefined ? {} : { oauth }),
    });
    closers.push(() => facade.close());
    const { app } = await buildSurfacesApp({
      facade,
      config: resolveHttpConfig({ failedAuthPerMinute: 1_000_000, rateLimitPerMinute: 1_000_000, ...(oauth === undefined ? {} : { oauth }) }),
      readiness: [],
      metrics: createHyphaeMetrics(),
      logger: false,
      version: '0.0.0-test',
    });
    closers.push(() => app.close());
    return { app, db, facade, keyAdmin: createKeyAdministration(db), close: closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
