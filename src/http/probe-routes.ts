/**
 * Probe and scrape routes: answered for any Host (kubelets and Prometheus address pods by IP),
 * never rate limited, and kept out of the request log (they come every few seconds).
 */
export const PROBE_ROUTES: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

export function isProbeRoute(routePattern: string | undefined): boolean {
  return routePattern !== undefined && PROBE_ROUTES.has(routePattern);
}
