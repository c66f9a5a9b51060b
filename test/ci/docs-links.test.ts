// Every relative link and `#anchor` in README.md and docs/**/*.md resolves: the file exists, and an
// anchor into a Markdown page is one of the anchors GitHub gives that page's headings. Every table
// has its header and separator rows (a row cut off by a blank line renders as a paragraph).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { anchorsOf, githubSlug, isExternal, linksOf } from './markdown-links.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function markdownUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownUnder(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

const PAGES = [join(ROOT, 'README.md'), ...markdownUnder(join(ROOT, 'docs'))];

/** Each link of a page that does not resolve, as `page:line target (why)`. */
function brokenLinks(page: string): string[] {
  const broken: string[] = [];
  for (const { line, target } of linksOf(readFileSync(page, 'utf8'))) {
    if (isExternal(target)) continue;
    const [pathPart = '', anchor] = target.split('#', 2) as [string, string | undefined];
    const file = pathPart === '' ? page : join(dirname(page), decodeURIComponent(pathPart));
    const where = `${relative(ROOT, page)}:${line} ${target}`;
    if (!existsSync(file)) {
      broken.push(`${where} (no such file)`);
      continue;
    }
    if (anchor === undefined || anchor === '' || !file.endsWith('.md')) continue;
    if (!anchorsOf(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor))) broken.push(`${where} (no such anchor)`);
  }
  return broken;
}

/** The lines (1-based) where a run of table rows starts without a separator row under its first. */
function headlessTables(markdown: string): number[] {
  const lines = markdown.split('\n');
  const headless: number[] = [];
  let fenced = false;
  lines.forEach((line, i) => {
    if (/^(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced || !line.startsWith('|') || lines[i - 1]?.startsWith('|') === true) return;
    if (!/^\|(\s*:?-+:?\s*\|)+\s*$/.test(lines[i + 1] ?? '')) headless.push(i + 1);
  });
  return headless;
}

describe('the documentation links', () => {
  it('slugs headings the way GitHub does', () => {
    expect(githubSlug('Connect from claude.ai or ChatGPT')).toBe('connect-from-claudeai-or-chatgpt');
    expect(githubSlug('PostgreSQL: failover and backups')).toBe('postgresql-failover-and-backups');
    expect(githubSlug('`hyphae serve` — the [server](x.md)')).toBe('hyphae-serve--the-server');
    expect([...anchorsOf('# Tests\n```sh\n# not a heading\n```\n## Tests\n<a name="here"></a>\n')]).toEqual(['tests', 'tests-1', 'here']);
  });

  it('finds a broken link and a broken anchor, and ignores code', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hyphae-links-'));
    try {
      writeFileSync(join(dir, 'b.md'), '# Yes, here\n');
      writeFileSync(join(dir, 'a.md'), '[ok](b.md#yes-here) [bad](b.md#no) [gone](c.md) `[code](d.md)`\n```\n[e](f.md)\n```\n[self](#nowhere)\n');
      expect(brokenLinks(join(dir, 'a.md')).map((b) => b.replace(/^.*a\.md:/, ''))).toEqual([
        '1 b.md#no (no such anchor)',
        '1 c.md (no such file)',
        '5 #nowhere (no such anchor)',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has an index, docs/README.md, linking every page of docs/, linked from README.md and docs/architecture.md', () => {
    const index = join(ROOT, 'docs', 'README.md');
    expect(existsSync(index), 'docs/README.md').toBe(true);
    const indexed = new Set(linksOf(readFileSync(index, 'utf8')).map(({ target }) => join(ROOT, 'docs', target.split('#')[0] as string)));
    const pages = readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md') && name !== 'README.md')
      .map((name) => join(ROOT, 'docs', name));
    expect(pages.filter((page) => !indexed.has(page)).map((page) => relative(ROOT, page))).toEqual([]);
    expect(indexed.has(join(ROOT, 'docs', 'runbooks', 'README.md')), 'the runbooks').toBe(true);
    for (const [from, target] of [['README.md', 'docs/README.md'], ['docs/architecture.md', 'README.md']] as const) {
      const targets = linksOf(readFileSync(join(ROOT, from), 'utf8')).map((link) => link.target.split('#')[0]);
      expect(targets, `${from} links the index`).toContain(target);
    }
  });

  it('reaches sizing.md and performance.md from README.md', () => {
    const targets = linksOf(readFileSync(join(ROOT, 'README.md'), 'utf8')).map((link) => link.target.split('#')[0]);
    expect(targets).toEqual(expect.arrayContaining(['docs/sizing.md', 'docs/performance.md']));
  });

  it.each(PAGES.map((page) => [relative(ROOT, page), page]))('%s: every relative link and anchor resolves', (_name, page) => {
    expect(brokenLinks(page)).toEqual([]);
  });

  it('finds a table row cut off from its table, and ignores code', () => {
    expect(headlessTables('| a | b |\n|---|:-:|\n| 1 | 2 |\n\n| 3 | 4 |\n```\n| x |\n```\n')).toEqual([5]);
  });

  it.each(PAGES.map((page) => [relative(ROOT, page), page]))('%s: every table has its header and separator rows', (_name, page) => {
    expect(headlessTables(readFileSync(page, 'utf8'))).toEqual([]);
  });
});
