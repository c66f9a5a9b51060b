/**
 * A real `nats-server` for tests: a child process on a free loopback port, restartable on the same
 * port (stop() then start()) so tests can take NATS away and give it back.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { skipTier } from './test-tiers.js';

export interface NatsServer {
  readonly url: string;
  readonly port: number;
  /** Kills the server (SIGKILL: as abrupt as a crashed pod); resolves once it has exited. */
  stop(): Promise<void>;
  /** Starts it again on the same port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** SIGSTOP: the server keeps its sockets open but answers nothing (a hung NATS). */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
}

function runs(binary: string): boolean {
  return spawnSync(binary, ['--version'], { stdio: 'ignore' }).status === 0;
}

/** `nats-server` on PATH (Debian's package), else the one scripts/nats-server-assets.sh built into the cache. */
function locateNatsServer(): string {
  if (runs('nats-server')) return 'nats-server';
  const cache = process.env.HYPHAE_ASSETS_DIR ?? join(homedir(), '.cache', 'hyphae');
  const built = existsSync(cache) ? readdirSync(cache).filter((name) => name.startsWith('nats-server-')) : [];
  return built.map((name) => join(cache, name, 'nats-server')).find(runs) ?? 'nats-server';
}

/** NATS_SERVER_BIN when set (and then only it), else found on PATH or in ~/.cache/hyphae. */
export const NATS_SERVER_BINARY = process.env.NATS_SERVER_BIN ?? locateNatsServer();

export function natsServerInstalled(): boolean {
  return runs(NATS_SERVER_BINARY);
}

/** For `describe.skipIf`: true (with a message naming the binary) when absent, but absent under HYPHAE_TEST_REQUIRE=all fails. */
export function skipWithoutNatsServer(): boolean {
  return !natsServerInstalled() && skipTier('nats', NATS_SERVER_BINARY);
}

/** A port free on loopback now (another process may take it before it is used). */
export async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * True once the server named `name` answers on `port`: its INFO line names it. Another test's
 * server that took the same "free" port first (freeLoopbackPort's race) does not count, so a test
 * never pauses or kills one server while its client talks to another.
 */
function serves(port: number, name: string): Promise<boolean> {
  return new Promise((resolve) => {
    let seen = '';
    const socket = createConnection({ host: '127.0.0.1', port });
    const done = (answer: boolean): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(2_000, () => done(false));
    socket.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const end = seen.indexOf('\r\n');
      if (end < 0) return;
      const info = /^INFO (.*)$/.exec(seen.slice(0, end));
      try {
        done(info !== null && (JSON.parse(info[1] ?? '') as { server_name?: unknown }).server_name === name);
      } catch {
        done(false);
      }
    });
    socket.once('error', () => done(false));
  });
}

export async function startNatsServer(): Promise<NatsServer> {
  let port = await freeLoopbackPort();
  const name = `hyphae-test-${randomUUID()}`;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  const start = async (): Promise<void> => {
    if (child) return;
    const spawned = spawn(NATS_SERVER_BINARY, ['-a', '127.0.0.1', '-p', String(port), '--server_name', name], { stdio: 'ignore' });
    child = spawned;
    exited = new Promise((resolve) => spawned.once('exit', () => resolve()));
    void exited.then(() => {
      if (child === spawned) child = undefined;
    });
    const deadline = Date.now() + 15_000;
    while (!(await serves(port, name))) {
      if (child !== spawned) throw new Error(`${NATS_SERVER_BINARY} exited before listening on ${port}`);
      if (Date.now() > deadline) throw new Error(`${NATS_SERVER_BINARY} did not listen on ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  const stop = async (): Promise<void> => {
    const running = child;
    if (!running) return;
    running.kill('SIGKILL');
    await exited;
  };

  const signal = (which: NodeJS.Signals): void => {
    if (!child) throw new Error(`${NATS_SERVER_BINARY} is not running`);
    child.kill(which);
  };

  // Another process may take the free port first: then this server exits, and a fresh port is tried.
  for (let attempt = 1; ; attempt += 1) {
    try {
      await start();
      break;
    } catch (error) {
      if (attempt === 5 || !/exited before listening/.test(String(error))) throw error;
      port = await freeLoopbackPort();
    }
  }
  return { url: `nats://127.0.0.1:${port}`, port, start, stop, pause: () => signal('SIGSTOP'), resume: () => signal('SIGCONT') };
}
