import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const FIXTURE = fileURLToPath(new URL('./fixtures/worker-process.ts', import.meta.url));

export interface WorkerProcess {
  readonly child: ChildProcess;
  /** Resolves when the worker has printed a line starting with `prefix` since it became ready (now or earlier). */
  untilPrinted(prefix: string): Promise<void>;
  /** Lets every held batch (and all later ones) run. */
  release(): void;
  /** Texts received and waiting behind the held batch (the worker's queue-depth gauge). */
  queuedTexts(): Promise<number>;
  readonly exitCode: Promise<number | null>;
}

export interface WorkerProcessOptions {
  /** Most texts per embedder call (the worker's batch size); default 64. */
  readonly maxBatchTexts?: number;
  /** Holds the worker's event loop this long once SIGTERM has begun its stop (default 0). */
  readonly blockOnSigtermMs?: number;
}

/**
 * Spawns test/worker/fixtures/worker-process.ts under tsx and waits until it serves. Its batches
 * are held until `release()`: `untilPrinted('batch')` means the worker holds a request now.
 */
export async function spawnWorkerProcess(natsUrl: string, options: WorkerProcessOptions = {}): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, natsUrl, String(options.maxBatchTexts ?? 64), String(options.blockOnSigtermMs ?? 0)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
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
  const untilPrinted = (prefix: string): Promise<void> =>
    lines.some((line) => line.startsWith(prefix))
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          waiters.push({ prefix, resolve });
          void exitCode.then(() => reject(new Error(`worker process exited before printing '${prefix}'`)));
        });
  await untilPrinted('ready');
  const httpUrl = lines.find((line) => line.startsWith('ready '))?.slice('ready '.length) ?? '';
  const queuedTexts = async (): Promise<number> => {
    const text = await (await fetch(`${httpUrl}/metrics`)).text();
    const sample = /^hyphae_worker_queue_depth(?:\{[^}]*\})? (\S+)$/m.exec(text);
    return Number(sample?.[1] ?? Number.NaN);
  };
  return { child, untilPrinted, release: () => child.stdin?.write('release\n'), queuedTexts, exitCode };
}
