#!/usr/bin/env node
// The `hyphae` executable. A built image runs the compiled JavaScript in dist/; a checkout runs
// the TypeScript sources directly through tsx's loader, so `npm install && npm start` needs no build.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = join(root, 'dist', 'src', 'cli', 'main.js');
let entry;
if (existsSync(compiled)) {
  entry = compiled;
} else {
  const { register } = await import('tsx/esm/api');
  register();
  entry = join(root, 'src', 'cli', 'main.ts');
}
const { main } = await import(pathToFileURL(entry).href);
await main(process.argv.slice(2));
