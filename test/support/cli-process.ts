/** Runs the real `hyphae` executable (bin/hyphae.js, or `npx hyphae`) as a child process for CLI and product tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const HYPHAE_BIN = fileURLToPath(new URL('../../bin/hyphae.js', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** How the executable is started: `node bin/hyphae.js …` (as `npm start` does) or `npx hyphae …` from the checkout (as the README says). */
export interface Launcher {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  /** npx does not pass SIGTERM on to the command it runs: such a launch gets its own process group, and stop() signals the group. */
  readonly signalGroup?: boolean;
}

export const NODE_LAUNCHER: Launcher = { command: process.execPath, args: [HYPHAE_BIN] };

/** `npx --prefix <checkout> hyphae …` run from `cwd`, as the README's MCP client configurations do. */
export function npxLauncher(cwd: string): Launcher {
  return { command: 'npx', args: ['-y', '--prefix', REPO_ROOT, 'hyphae'], cwd, signalGroup: true };
}

export interface CommandResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * A clean environment: none of the developer's HYPHAE_* settings leak into a test, and every
 * default applies (the embedder included) unless `extra` says otherwise.
 */
export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('HYPHAE_')) env[key] = value;
  return { ...env, HYPHAE_LOG_LEVEL: 'warn', ...extra };
}

export function runHyphae(args: readonly string[], env: NodeJS.ProcessEnv, input?: string, launcher: Launcher = NODE_LAUNCHER): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(launcher.command, [...launcher.args, ...args], { env, cwd: launcher.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
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

/**
 * Starts `hyphae serve` and resolves once it reports the address it listens on. Test servers run
 * concurrently, so the gRPC port stays off (HYPHAE_GRPC_PORT=0) unless the caller's env names one;
 * an empty HYPHAE_GRPC_PORT means unset, i.e. the default port (test/product/default-serve.test.ts).
 */
export function startServer(args: readonly string[], env: NodeJS.ProcessEnv, launcher: Launcher = NODE_LAUNCHER): Promise<RunningServer> {
  const withGrpcPort = 'HYPHAE_GRPC_PORT' in env ? env : { ...env, HYPHAE_GRPC_PORT: '0' };
  return startHyphae(['serve', ...args], withGrpcPort, /serving on (http:\/\/[^\s]+)/, launcher);
}

/** Starts `hyphae worker` and resolves once it reports its model and HTTP address. */
export function startWorker(args: readonly string[], env: NodeJS.ProcessEnv, launcher: Launcher = NODE_LAUNCHER): Promise<RunningServer> {
  return startHyphae(['worker', ...args], env, /hyphae worker: .*HTTP (http:\/\/[^\s]+)/, launcher);
}

/** Starts a long-running `hyphae` command; resolves once stderr matches `ready` (its first group is the URL). */
export function startHyphae(args: readonly string[], env: NodeJS.ProcessEnv, ready: RegExp, launcher: Launcher = NODE_LAUNCHER): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const child = spawn(launcher.command, [...launcher.args, ...args], { env, cwd: launcher.cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: launcher.signalGroup === true });
    let stdout = '';
    let stderr = '';
    let settled = false;
    const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = ready.exec(stderr);
      if (match?.[1] !== undefined && !settled) {
        settled = true;
        resolve({
          child,
          url: match[1],
          stdout: () => stdout,
          stderr: () => stderr,
          stop: async () => {
            if (child.exitCode === null && child.signalCode === null) {
              if (launcher.signalGroup === true && child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
              else child.kill('SIGTERM');
            }
            return exited;
          },
        });
      }
    });
    void exited.then((code) => {
      if (!settled) {
        settled = true;
        reject(new Error(`hyphae ${args.join(' ')} exited with ${code} before it was ready:\n${stderr}`));
      }
    });
  });
}
