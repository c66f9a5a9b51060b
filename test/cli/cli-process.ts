/** Runs the real `hyphae` executable (bin/hyphae.js) as a child process for CLI tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const HYPHAE_BIN = fileURLToPath(new URL('../../bin/hyphae.js', import.meta.url));

export interface CommandResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A clean environment: none of the developer's HYPHAE_* settings leak into a test. */
export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('HYPHAE_')) env[key] = value;
  return { ...env, HYPHAE_EMBEDDER: 'hash', HYPHAE_LOG_LEVEL: 'warn', ...extra };
}

export function runHyphae(args: readonly string[], env: NodeJS.ProcessEnv, input?: string): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HYPHAE_BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

export interface RunningServer {
  readonly child: ChildProcess;
  readonly url: string;
  stdout(): string;
  stderr(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `hyphae serve` and resolves once it reports the address it listens on. */
export function startServer(args: readonly string[], env: NodeJS.ProcessEnv): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HYPHAE_BIN, 'serve', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let settled = false;
    const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = /serving on (http:\/\/[^\s]+)/.exec(stderr);
      if (match?.[1] !== undefined && !settled) {
        settled = true;
        resolve({
          child,
          url: match[1],
          stdout: () => stdout,
          stderr: () => stderr,
          stop: async () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    void exited.then((code) => {
      if (!settled) {
        settled = true;
        reject(new Error(`hyphae serve exited with ${code} before listening:\n${stderr}`));
      }
    });
  });
}
