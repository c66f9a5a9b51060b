import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const FIXTURE = fileURLToPath(new URL('./fixtures/worker-process.ts', import.meta.url));

export interface WorkerProcess {
  readonly child: ChildProcess;
  /** Resolves when the worker has printed a line starting with `prefix` (now or earlier). */
  waitFor(prefix: string): Promise<void>;
  readonly exitCode: Promise<number | null>;
}

/** Spawns test/worker/fixtures/worker-process.ts under tsx and waits until it serves. */
export async function spawnWorkerProcess(natsUrl: string, delayMs: number): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, natsUrl, String(delayMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiters: { prefix: string; resolve: () => void }[] = [];
  let buffered = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      lines.push(line);
      for (const waiter of waiters.filter((w) => line.startsWith(w.prefix))) waiter.resolve();
      newline = buffered.indexOf('\n');
    }
  });
  const exitCode = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitFor = (prefix: string): Promise<void> =>
    lines.some((line) => line.startsWith(prefix))
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          waiters.push({ prefix, resolve });
          void exitCode.then(() => reject(new Error(`worker process exited before printing '${prefix}'`)));
        });
  await waitFor('ready');
  return { child, waitFor, exitCode };
}
