/** The process-wide Prometheus metrics: what the composition root creates and every layer reports into. */
export { createHyphaeMetrics } from './hyphae-metrics.js';
export type { DiffTransport, HyphaeMetrics, McpCallOutcome } from './hyphae-metrics.js';
export type { DbPoolSample } from './dependency-gauges.js';
export type { StreamDropReason, StreamDropTransport } from './stream-drop-reason.js';
