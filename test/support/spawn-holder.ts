import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const HOLDER_SCRIPT = fileURLToPath(new URL('./hold-data-dir.ts', import.meta.url));

export interface DataDirHolder {
  readonly pid: number;
  readonly child: ChildProcess;
  /** Closes stdin so the holder closes the folder cleanly, and waits for it to exit. */
  stop(): Promise<void>;
  /** SIGKILL: the holder dies without releasing anything (a crash). */
  kill(): Promise<void>;
}

/** Starts a separate `node` process holding dataDir (see hold-data-dir.ts); resolves once it holds it. */
export async function spawnDataDirHolder(
  dataDir: string,
  options: { readonly templatePath?: string; readonly lockOnly?: boolean } = {},
): Promise<DataDirHolder> {
  const args = ['--import', 'tsx', HOLDER_SCRIPT, dataDir, options.templatePath ?? '', options.lockOnly === true ? 'lock-only' : 'open'];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await new Promise<void>((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('ready ')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`data-dir holder exited with ${code}: ${stderr}`)));
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('data-dir holder has no pid');
  return {
    pid,
    child,
    async stop(): Promise<void> {
      child.stdin?.end();
      await exited;
    },
    async kill(): Promise<void> {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
