#!/usr/bin/env node
// `npm run build`: compiles src/ and operator/src/ into a fresh dist/ and copies the files the
// compiled code reads at run time (the SQL migrations) and the web console's bundle, so dist/ + bin/ + package.json +
// production node_modules is the whole product (the Dockerfile's runtime stage is exactly that).
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

// A clean tree: a module or migration deleted from src/ must not live on in dist/.
rmSync(dist, { recursive: true, force: true });

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

/** Non-TypeScript files the compiled modules load beside themselves. */
const ASSETS = ['src/store/migrations'];
for (const asset of ASSETS) cpSync(join(root, asset), join(dist, asset), { recursive: true });

// The web console's static bundle, served at /console (dist/console).
const consoleBuild = spawnSync(process.execPath, [join(root, 'scripts', 'build-console.mjs')], { stdio: 'inherit' });
if (consoleBuild.status !== 0) process.exit(consoleBuild.status ?? 1);
