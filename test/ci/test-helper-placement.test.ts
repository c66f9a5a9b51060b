import { readdirSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importsOf } from '../support/test-projects.js';

// docs/testing.md, "Where tests and helpers go": shared helpers in test/support/, a private one beside its tests.
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const SOURCE = /\.[cm]?[jt]s$/;

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sourceFiles(path));
    else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) found.push(path);
  }
  return found;
}

const repoPath = (file: string): string => relative(REPO, file).split(sep).join('/');
const folders = ['src', 'test', 'bench', 'operator', 'scripts'];
const files = [...folders.flatMap((folder) => sourceFiles(join(REPO, folder))), join(REPO, 'vitest.config.ts')];
const importers = new Map<string, string[]>();
for (const file of files) {
  for (const imported of new Set(importsOf(file).ours)) importers.set(repoPath(imported), [...(importers.get(repoPath(imported)) ?? []), repoPath(file)]);
}
const testHelpers = files
  .map(repoPath)
  .filter((path) => path.startsWith('test/') && !path.endsWith('.test.ts') && !path.includes('/fixtures/'));
const folderOf = (path: string): string => dirname(path);

describe('test helpers sit in one test/support/, or beside the only tests that use them', () => {
  it('a helper outside test/support/ is imported from its own folder only', () => {
    const strays = testHelpers
      .filter((path) => !path.startsWith('test/support/'))
      .flatMap((path) => (importers.get(path) ?? []).filter((user) => folderOf(user) !== folderOf(path)).map((user) => `${path} ← ${user}`));
    expect(strays).toEqual([]);
  });

  it('a helper in test/support/ serves more than one folder of tests, or src/, bench/, the configuration or test/support itself', () => {
    const shared = (users: readonly string[]): boolean =>
      users.some((user) => !user.startsWith('test/') || user.startsWith('test/support/')) || new Set(users.map(folderOf)).size > 1;
    const unshared = testHelpers.filter((path) => path.startsWith('test/support/') && (importers.get(path) ?? []).length > 0 && !shared(importers.get(path) ?? []));
    expect(unshared.map((path) => `${path} is used by ${folderOf(importers.get(path)?.[0] ?? '')}/ alone`)).toEqual([]);
  });

  it('no folder but test/support/ is called support', () => {
    const supportFolders = [...new Set(testHelpers.map(folderOf))].filter((folder) => folder.split('/').includes('support') && !folder.startsWith('test/support'));
    expect(supportFolders).toEqual([]);
  });
});
