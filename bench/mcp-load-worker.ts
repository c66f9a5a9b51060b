/**
 * The load generator of the MCP bench, run in a worker thread so it does not share the event
 * loop of the servers it measures: N keep-alive connections, each sending the same POST back to
 * back for a fixed time, recording every latency.
 */
import { Worker } from 'node:worker_threads';

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
  readonly latencies: Float64Array;
  readonly firstError?: string;
}

// Plain JavaScript so the worker needs no TypeScript loader.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { port, path, headers, body, expect, concurrency, durationMs } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const payload = Buffer.from(body);
const allHeaders = { ...headers, 'content-length': String(payload.length) };
const latencies = [];
let errors = 0;
let firstError;
const started = performance.now();
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
  parentPort.postMessage({ completed: latencies.length, errors, elapsedMs: performance.now() - started, latencies: Float64Array.from(latencies), firstError });
});
`;

export function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: spec });
    worker.once('message', (result: LoadResult) => {
      void worker.terminate();
      resolve(result);
    });
    worker.once('error', reject);
  });
}
