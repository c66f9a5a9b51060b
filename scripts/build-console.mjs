#!/usr/bin/env node
// `npm run build:console`: bundles the web console (console/, Preact + TypeScript) with vite into
// dist/console — static files `hyphae serve` serves at /console, no CDN, nothing fetched at run time.
// `--if-stale` (what `npm start` runs) builds only when the bundle is missing or older than its sources.
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'dist', 'console');
/** What the bundle is made of: the console's sources and the core types and constants it imports. */
const SOURCES = [join(root, 'console'), join(root, 'src', 'core')];

function newestMtime(path) {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
}

function bundleIsCurrent() {
  try {
    return statSync(join(outDir, 'index.html')).mtimeMs >= Math.max(...SOURCES.map(newestMtime));
  } catch {
    return false;
  }
}

const ifStale = process.argv.includes('--if-stale');
if (ifStale && bundleIsCurrent()) process.exit(0);

let vite;
try {
  vite = await import('vite');
} catch (error) {
  // An install without dev dependencies cannot build it; `npm start` still serves everything else.
  if (!ifStale || error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
  console.error('console: not built (vite, a dev dependency, is not installed); /console answers 503 until `npm run build:console` runs');
  process.exit(0);
}
const { build } = vite;
await build({
  configFile: false,
  root: join(root, 'console'),
  base: '/console/',
  logLevel: 'warn',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    // The polyfill would be an inline script, which the console's CSP refuses; every target browser has modulepreload.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
  },
});
console.error(`console: bundled into ${outDir}`);
