/**
 * A real nats-server child process on a free loopback port, restartable on the same port so a
 * test can take NATS away and give it back. (Local to the mesh tests until test/support has one.)
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createConnection, createServer } from 'node:net';

export interface NatsServerProcess {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
}

const BINARY = process.env.NATS_SERVER_BIN ?? 'nats-server';

export function natsServerAvailable(): boolean {
  const probe = spawnSync(BINARY, ['--version'], { stdio: 'ignore' });
  return probe.status === 0;
}

/** describe.skipIf condition: absent binary skips, unless HYPHAE_TEST_REQUIRE=all makes it fail. */
export function skipWithoutNatsServer(): boolean {
  if (natsServerAvailable()) return false;
  if (process.env.HYPHAE_TEST_REQUIRE === 'all') throw new Error(`${BINARY} is required (HYPHAE_TEST_REQUIRE=all) but was not found`);
  console.warn(`skipping: ${BINARY} not found (apt-get install -y nats-server)`);
  return true;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nats-server did not listen on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function startNatsServer(): Promise<NatsServerProcess> {
  const port = await freePort();
  let child: ChildProcess | undefined;

  const start = async (): Promise<void> => {
    if (child) return;
    child = spawn(BINARY, ['-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
    child.once('exit', () => {
      child = undefined;
    });
    await waitForPort(port, 10_000);
  };

  const stop = async (): Promise<void> => {
    const running = child;
    if (!running) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGKILL');
    });
  };

  await start();
  return { url: `nats://127.0.0.1:${port}`, port, start, stop };
}
