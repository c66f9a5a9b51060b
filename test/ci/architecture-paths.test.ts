// docs/architecture.md is the map a newcomer follows: every path and file name it names in code
// spans exists. A `src/…`, `test/…` or `operator/…` span must exist as written; a bare `name.ts`
// must be the name of some file in the tree. Patterns (`*`, `<…>`) and non-paths are skipped.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ROOTED = /^(src|test|operator|bench|charts|console|crds|proto|scripts|docs)\//;
const SOURCE_FILE = /^[\w.-]+\.(ts|sql|proto|js|mjs)$/;

function filesUnder(dir: string, into: Set<string>): Set<string> {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) filesUnder(path, into);
    else into.add(basename(path));
  }
  return into;
}

/** The code spans of a Markdown page outside fenced blocks, with their line numbers. */
function codeSpans(markdown: string): { line: number; span: string }[] {
  const spans: { line: number; span: string }[] = [];
  let fenced = false;
  markdown.split('\n').forEach((text, index) => {
    if (text.trimStart().startsWith('```')) fenced = !fenced;
    if (fenced) return;
    for (const match of text.matchAll(/`([^`]+)`/g)) spans.push({ line: index + 1, span: match[1] ?? '' });
  });
  return spans;
}

/** Each span naming a path or a file that does not exist, as `line: span`. */
function missingPaths(markdown: string, root: string, fileNames: ReadonlySet<string>): string[] {
  const missing: string[] = [];
  for (const { line, span } of codeSpans(markdown)) {
    const candidate = span.trim().replace(/[.,;:]$/, '');
    if (/[*<>{}\s]/.test(candidate)) continue;
    if (ROOTED.test(candidate)) {
      if (!existsSync(join(root, candidate))) missing.push(`${line}: ${candidate}`);
    } else if (SOURCE_FILE.test(candidate) && !fileNames.has(candidate)) {
      missing.push(`${line}: ${candidate}`);
    }
  }
  return missing;
}

describe('docs/architecture.md names only what exists', () => {
  it('finds a path and a file name that do not exist, and skips patterns', () => {
    const page = '`src/core/` `src/nowhere/x.ts` `gone.ts` `kept.ts` `*-tool.ts` `hyphae.<tenant>`\n```\n`src/fenced.ts`\n```\n';
    expect(missingPaths(page, ROOT, new Set(['kept.ts']))).toEqual(['1: src/nowhere/x.ts', '1: gone.ts']);
  });

  it('every path and file it names is in the tree', () => {
    const names = new Set<string>(readdirSync(ROOT).filter((name) => statSync(join(ROOT, name)).isFile()));
    for (const top of ['src', 'test', 'operator', 'bench', 'scripts', 'console', 'proto']) {
      if (existsSync(join(ROOT, top))) filesUnder(join(ROOT, top), names);
    }
    const page = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    expect(missingPaths(page, ROOT, names)).toEqual([]);
  });
});
