/**
 * The web console's static files (built by `npm run build:console` into dist/console), read once at
 * start-up into memory with their gzip forms: a few tens of kilobytes, served without touching disk.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export interface ConsoleFile {
  readonly body: Buffer;
  readonly gzip: Buffer;
  readonly contentType: string;
}

/** Files by their path under /console/ (`index.html`, `assets/index-abc.js`). */
export type ConsoleBundle = ReadonlyMap<string, ConsoleFile>;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
};

/** dist/console of the package this module belongs to, from src/console (tsx) or dist/src/console (built). */
export function defaultBundleDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return join(dir, 'dist', 'console');
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The bundle in `dir`; undefined when it was never built (no index.html). */
export function loadConsoleBundle(dir: string = defaultBundleDir()): ConsoleBundle | undefined {
  if (!existsSync(join(dir, 'index.html'))) return undefined;
  const bundle = new Map<string, ConsoleFile>();
  for (const path of filesUnder(dir)) {
    const contentType = CONTENT_TYPES[extname(path)];
    if (contentType === undefined) continue;
    const name = relative(dir, path).split(sep).join('/');
    const body = readFileSync(path);
    bundle.set(name, { body, gzip: gzipSync(body, { level: 9 }), contentType });
  }
  return bundle;
}
