export { runWorker, WORKER_DEFAULT_MAX_BATCH_TEXTS, WORKER_DEFAULT_MAX_WAIT_MS } from './run-worker.js';
export type { RunningWorker, WorkerOptions } from './run-worker.js';
