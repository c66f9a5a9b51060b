/**
 * The load generator of the HTTP benches (mcp, rest, oauth, …), run in a child process so it shares neither the event loop
 * nor the CPU accounting of the servers it measures: N keep-alive connections, each sending the
 * same POST back to back for a fixed time, recording every latency.
 */
import { spawn } from 'node:child_process';

export interface LoadSpec {
  readonly port: number;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The response body must contain this, or the request counts as an error. */
  readonly expect: string;
  readonly concurrency: number;
  readonly durationMs: number;
}

export interface LoadResult {
  readonly completed: number;
  readonly errors: number;
  readonly elapsedMs: number;
  /** Milliseconds, one per completed request. */
  readonly latencies: readonly number[];
  /** CPU time this process (the servers) spent while the load ran, in milliseconds. */
  readonly serverCpuMs: number;
  /** CPU time the load generator itself spent sending and reading, in milliseconds (0 where no generator ran). */
  readonly clientCpuMs: number;
  readonly firstError?: string;
}

// Plain JavaScript so the child needs no TypeScript loader; the spec arrives on stdin, the result leaves on stdout.
const LOADER_SOURCE = `
const http = require('node:http');
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => run(JSON.parse(input)));
function run({ port, path, headers, body, expect, concurrency, durationMs }) {
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const payload = Buffer.from(body);
const allHeaders = { ...headers, 'content-length': String(payload.length) };
const latencies = [];
let errors = 0;
let firstError;
const started = performance.now();
const cpuAtStart = process.cpuUsage();
const deadline = started + durationMs;
function once() {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const req = http.request({ agent, host: '127.0.0.1', port, path, method: 'POST', headers: allHeaders }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode === 200 && text.includes(expect)) latencies.push(performance.now() - t0);
        else { errors += 1; if (firstError === undefined) firstError = res.statusCode + ' ' + text.slice(0, 300); }
        resolve();
      });
    });
    req.on('error', (e) => { errors += 1; if (firstError === undefined) firstError = String(e); resolve(); });
    req.end(payload);
  });
}
async function loop() { while (performance.now() < deadline) await once(); }
Promise.all(Array.from({ length: concurrency }, loop)).then(() => {
  agent.destroy();
  const cpu = process.cpuUsage(cpuAtStart);
  process.stdout.write(JSON.stringify({ completed: latencies.length, errors, elapsedMs: performance.now() - started, clientCpuMs: (cpu.user + cpu.system) / 1000, latencies, firstError }));
});
}
`;

export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', LOADER_SOURCE], { stdio: ['pipe', 'pipe', 'inherit'] });
    let output = '';
    let cpuBefore: NodeJS.CpuUsage | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('spawn', () => {
      cpuBefore = process.cpuUsage();
    });
    child.once('error', reject);
    child.once('close', (code) => {
      const cpu = process.cpuUsage(cpuBefore);
      if (code !== 0) {
        reject(new Error(`load generator exited with ${code}`));
        return;
      }
      const parsed = JSON.parse(output) as Omit<LoadResult, 'serverCpuMs'>;
      resolve({ ...parsed, serverCpuMs: (cpu.user + cpu.system) / 1000 });
    });
    child.stdin.end(JSON.stringify(spec));
  });
}
