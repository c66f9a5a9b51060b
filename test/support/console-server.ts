/**
 * What the console's browser tests and screenshots run against: the composed process `hyphae serve`
 * runs (src/app + the serve app, console included), on a template-cloned PGlite with the hash
 * embedder and the in-process bus, listening on a loopback port; keys minted for a small team.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { join } from 'node:path';
import { openHyphaeApp, type HyphaeApp } from '../../src/app/index.js';
import { buildServeApp } from '../../src/cli/serve-app.js';
import { loadConfig } from '../../src/core/config.js';
import type { CreatedApiKey } from '../../src/core/entities.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import type { Db } from '../../src/store/db.js';
import { REPO_ROOT } from './cli-process.js';

export interface ConsoleServer {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly hyphae: HyphaeApp;
  /** Keys by agent: `admin` (admin), `alice` and `bob` (writers), `carol` (reader). */
  readonly keys: Readonly<Record<'admin' | 'alice' | 'bob' | 'carol', CreatedApiKey>>;
  /** A REST call with `agent`'s key, as an agent would make it. */
  rest<T>(agent: keyof ConsoleServer['keys'], method: string, path: string, body?: unknown): Promise<T>;
  close(): Promise<void>;
}

/** Builds the console bundle when it is missing or older than its sources (what `npm start` does). */
export function buildConsoleBundle(): void {
  const built = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build-console.mjs'), '--if-stale'], { encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`the console bundle did not build:\n${built.stderr}`);
}

export interface ConsoleServerOptions {
  readonly env?: Readonly<Record<string, string>>;
  /** A migrated-for-this-embedder database (tests pass a template clone); default: a fresh embedded folder. */
  readonly openDb?: (identity: { readonly modelId: string; readonly dimension: number }) => Promise<Db>;
  /** The loopback port to listen on (a public URL set in `env` must name it); default: any free one. */
  readonly port?: number;
}

export async function startConsoleServer(options: ConsoleServerOptions = {}): Promise<ConsoleServer> {
  buildConsoleBundle();
  const embedder = await createEmbedder({ kind: 'hash' });
  const dataDir = mkdtempSync(join(tmpdir(), 'hyphae-console-'));
  const db = options.openDb === undefined ? undefined : await options.openDb({ modelId: embedder.modelId, dimension: embedder.dimension });
  const config = loadConfig({
    HYPHAE_EMBEDDER: 'hash',
    HYPHAE_DATA_DIR: dataDir,
    HYPHAE_LOG_LEVEL: 'silent',
    HYPHAE_RATE_LIMIT_PER_MINUTE: '1000000',
    HYPHAE_FAILED_AUTH_PER_MINUTE: '1000000',
    ...options.env,
  });
  const hyphae = await openHyphaeApp(config, {
    command: 'console test',
    onBackgroundError: (error) => console.error('console test server: background error', error),
    parts: { ...(db === undefined ? {} : { db }), embedder, authCacheTtlMs: 0 },
  });
  try {
    const app = await buildServeApp(hyphae, { logger: false });
    const url = await app.listen({ host: '127.0.0.1', port: options.port ?? 0 });
    const mint = (agent: string, role: 'admin' | 'writer' | 'reader'): Promise<CreatedApiKey> =>
      hyphae.keyAdmin.createKey({ tenant: 'default', agent, roles: [role], projects: ['*'], default_project: 'default', trust: 0.5 });
    const keys = { admin: await mint('console-admin', 'admin'), alice: await mint('alice', 'writer'), bob: await mint('bob', 'writer'), carol: await mint('carol', 'reader') };
    return {
      url,
      app,
      hyphae,
      keys,
      async rest<T>(agent: keyof typeof keys, method: string, path: string, body?: unknown): Promise<T> {
        const response = await fetch(`${url}${path}`, {
          method,
          headers: { 'x-hyphae-key': keys[agent].key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        if (!response.ok) throw new Error(`${method} ${path} as ${agent}: ${response.status} ${text}`);
        return (text === '' ? undefined : JSON.parse(text)) as T;
      },
      async close(): Promise<void> {
        await app.close();
        await hyphae.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await hyphae.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}
