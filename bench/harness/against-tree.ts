/** The `before` of a before/after run: <git-ref> checked out into a temporary git worktree that shares this tree's node_modules (nothing installed). */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './processes.js';

export interface BaselineTree {
  /** The commit checked out. */
  readonly commit: string;
  readonly root: string;
  remove(): void;
}

function git(args: readonly string[]): string {
  return execFileSync('git', ['-C', REPO_ROOT, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** The commit `ref` names here; throws naming the ref when git knows none. */
export function resolveCommit(ref: string): string {
  try {
    return git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  } catch {
    throw new Error(`--against ${ref}: no such commit in ${REPO_ROOT}`);
  }
}

/** A detached worktree of `ref` in a temporary directory, node_modules linked to this tree's. */
export function checkOutBaseline(ref: string): BaselineTree {
  const commit = resolveCommit(ref);
  const root = mkdtempSync(join(tmpdir(), 'hyphae-bench-before-'));
  git(['worktree', 'add', '--detach', '--force', root, commit]);
  const modules = join(REPO_ROOT, 'node_modules');
  if (!existsSync(modules)) throw new Error(`${modules} is missing: run npm install in this tree first`);
  symlinkSync(realpathSync(modules), join(root, 'node_modules'), 'dir');
  return {
    commit,
    root,
    remove(): void {
      try {
        git(['worktree', 'remove', '--force', root]);
      } finally {
        rmSync(root, { recursive: true, force: true });
        git(['worktree', 'prune']);
      }
    },
  };
}
