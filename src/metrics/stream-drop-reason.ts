/** Why backpressure ended a live stream, as hyphae_live_streams_dropped_total labels it. */

/** slow_reader: unsent bytes passed the bound; backlog: the catch-up alone did. */
export type StreamDropReason = 'slow_reader' | 'backlog';
export type StreamDropTransport = 'sse' | 'listen';
