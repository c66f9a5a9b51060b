/** Child processes of the benches: the `hyphae` executable, started and stopped as a user would. */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const HYPHAE_BIN = fileURLToPath(new URL('../../bin/hyphae.js', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Resolves with the first match of `pattern` in the child's stderr; rejects if it exits first. */
export function announced(child: ChildProcess, pattern: RegExp, what: string): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: string): void => {
      text += chunk;
      const match = pattern.exec(text);
      if (match !== null) {
        child.stderr?.off('data', onData);
        child.stderr?.resume();
        resolve(match);
      }
    };
    child.stderr?.setEncoding('utf8').on('data', onData);
    child.once('exit', (code) => reject(new Error(`${what} exited (${String(code)}) before it was ready: ${text.slice(-2000)}`)));
  });
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
}
