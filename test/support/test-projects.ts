/**
 * Splits the server's test files into the `unit` and `integration` Vitest projects by what they
 * run: a file that starts a process besides its own — native PostgreSQL, nats-server, Chromium,
 * promtool, git, the `hyphae` executable — directly or through anything it imports from this
 * repository, is `integration`; every other file runs in one Node process (PGlite, servers on
 * loopback) and is `unit`. Read from the imports, so a new test lands in its tier with no list to keep.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/** The modules through which a test starts another process. */
const STARTS_A_PROCESS = new Set(['node:child_process', 'child_process', 'playwright-core']);
const IMPORT = /(?:\bfrom|\bimport\()\s*['"]([^'"]+)['"]/g;
const TEST_FILE = /\.test\.ts$/;

export interface TestTierFiles {
  /** Repository-relative paths (forward slashes) of the files that run in one process. */
  readonly unit: readonly string[];
  /** Those of the files that start another process. */
  readonly integration: readonly string[];
}

/** The `*.test.ts` files under `folders` of `root`, minus the paths starting with an `excluded` prefix, by tier. */
export function testFilesByTier(root: string, folders: readonly string[], excluded: readonly string[]): TestTierFiles {
  const startsProcess = processStarter();
  const unit: string[] = [];
  const integration: string[] = [];
  for (const folder of folders) {
    for (const file of testFiles(join(root, folder))) {
      const path = relative(root, file).split(sep).join('/');
      if (excluded.some((prefix) => path.startsWith(prefix))) continue;
      (startsProcess(file) ? integration : unit).push(path);
    }
  }
  return { unit: unit.sort(), integration: integration.sort() };
}

function testFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...testFiles(path));
    else if (TEST_FILE.test(entry.name)) found.push(path);
  }
  return found;
}

/** What a source file imports: the module specifiers as written, and the files of ours they name. */
export function importsOf(file: string): { readonly specifiers: readonly string[]; readonly ours: readonly string[] } {
  const specifiers = [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((match) => match[1] ?? '');
  const ours = specifiers.filter((s) => s.startsWith('.')).map((s) => sourceOf(join(dirname(file), s)));
  return { specifiers, ours: ours.filter((f) => f !== undefined) };
}

/** Whether a file, or a file of ours it imports (transitively), imports a module that starts a process. */
function processStarter(): (file: string) => boolean {
  const known = new Map<string, { readonly startsProcess: boolean; readonly ours: readonly string[] }>();
  const read = (file: string): { readonly startsProcess: boolean; readonly ours: readonly string[] } => {
    let imports = known.get(file);
    if (imports === undefined) {
      const { specifiers, ours } = importsOf(file);
      imports = { startsProcess: specifiers.some((s) => STARTS_A_PROCESS.has(s)), ours };
      known.set(file, imports);
    }
    return imports;
  };
  return (file: string): boolean => {
    const seen = new Set([file]);
    const pending = [file];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const imports = read(next);
      if (imports.startsProcess) return true;
      for (const imported of imports.ours) {
        if (!seen.has(imported)) {
          seen.add(imported);
          pending.push(imported);
        }
      }
    }
    return false;
  };
}

/** The TypeScript file an ESM specifier (`./x.js`) names, if it is one of ours. */
function sourceOf(path: string): string | undefined {
  const candidates = path.endsWith('.js') ? [`${path.slice(0, -3)}.ts`, path] : [path, `${path}.ts`];
  return candidates.find((candidate) => /\.[cm]?[jt]s$/.test(candidate) && existsSync(candidate));
}
