/** Why backpressure ended a live stream, as hyphae_live_streams_dropped_total labels it. */

/** slow_reader: unsent bytes passed the bound; backlog: the catch-up alone did. */
export const STREAM_DROP_REASONS = ['slow_reader', 'backlog'] as const;
export type StreamDropReason = (typeof STREAM_DROP_REASONS)[number];
export const STREAM_DROP_TRANSPORTS = ['sse', 'listen'] as const;
export type StreamDropTransport = (typeof STREAM_DROP_TRANSPORTS)[number];
