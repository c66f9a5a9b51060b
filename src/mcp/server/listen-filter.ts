/**
 * The filter of a `subscriptions/listen` (MCP 2026-07-28), as the resources feature read it
 * (features/resources/listen-filter.ts) and the listen pushes honor it.
 */
export interface ListenFilter {
  readonly resourcesListChanged: boolean;
  /** Subscription key (`inbox`, `cell:<id>`) → the URI as the client wrote it. */
  readonly resources: ReadonlyMap<string, string>;
  /** The acknowledged filter, as sent in notifications/subscriptions/acknowledged. */
  readonly acknowledged: Readonly<Record<string, unknown>>;
}
